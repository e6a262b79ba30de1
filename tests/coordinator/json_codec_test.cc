#include "coordinator/json_codec.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/secrets.h"
#include "coordinator/checkpoint/metadata_json.h"
#include "coordinator/checkpoint/planner.h"

namespace ckpt {
namespace {

TEST(Metadata, RoundTripsChecksumsAndPlan) {
  PlanOptions o;
  o.num_layers = 1;
  o.ranks_per_node = 2;
  auto plan = MakePlan(o);
  ASSERT_TRUE(plan.ok());
  SegmentChecksums sums;
  for (const auto& r : plan->ranks) {
    for (const auto& f : r.files) {
      for (uint32_t k = 0; k < f.segments.size(); ++k) {
        sums[{r.rank, f.index, k}] =
            0xfedcba9876543210ull ^ (r.rank * 1000 + k);
      }
    }
  }
  std::string text = MetadataToJson(*plan, 5, 77, ChecksumKind::kXxh3, sums);
  auto m = ParseMetadata(text, "x/.metadata");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->step, 5u);
  EXPECT_EQ(m->seed, 77u);
  EXPECT_EQ(m->fingerprint, plan->fingerprint);
  EXPECT_EQ(m->layout, plan->layout);
  EXPECT_EQ(m->parameters, plan->parameters);
  EXPECT_EQ(m->total_bytes, plan->total_bytes);
  EXPECT_EQ(m->sums, sums);
}

TEST(Metadata, GarbageIsDataLossNamingFile) {
  auto m = ParseMetadata("{not json", "/ck/step-3/.metadata");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(std::string(m.status().message()).find("/ck/step-3/.metadata"),
            std::string::npos);
  EXPECT_FALSE(ParseMetadata("{\"format\":\"other\"}", "f").ok());
  // v1 hashed world size and files per rank into the identity.
  auto v1 = ParseMetadata(
      "{\"format\":\"ckptbench.checkpoint/v1\",\"fingerprint\":\"ab\"}", "v");
  ASSERT_FALSE(v1.ok());
  EXPECT_NE(std::string(v1.status().message()).find("older ckptbench"),
            std::string::npos)
      << v1.status();
}

// The fuzzer found that a float where a count belongs was converted with
// undefined behaviour; every number must be a whole number in range.
TEST(Metadata, NumbersOutOfRangeOrNotWholeAreRefusedNamingTheField) {
  PlanOptions o;
  o.num_layers = 1;
  auto plan = MakePlan(o);
  ASSERT_TRUE(plan.ok());
  SegmentChecksums sums;
  for (const auto& r : plan->ranks) {
    for (const auto& f : r.files) {
      for (uint32_t k = 0; k < f.segments.size(); ++k)
        sums[{r.rank, f.index, k}] = 0xab;
    }
  }
  const std::string good =
      MetadataToJson(*plan, 5, 77, ChecksumKind::kXxh3, sums);
  ASSERT_TRUE(ParseMetadata(good, "m").ok());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return ParseMetadata(text, "ck/step-5/.metadata");
  };
  for (const char* step : {"1e300", "-1", "5.5", "18446744073709551616"}) {
    auto m = with("\"step\":5", std::string("\"step\":") + step);
    ASSERT_FALSE(m.ok()) << step;
    EXPECT_NE(std::string(m.status().message()).find("field 'step'"),
              std::string::npos)
        << m.status();
  }
  auto big = with("\"world_size\":", "\"world_size\":4294967296,\"x\":");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(std::string(big.status().message()).find("world_size"),
            std::string::npos)
      << big.status();
  auto hex = with("\"00000000000000ab\"", "\"-1\"");
  ASSERT_FALSE(hex.ok());
  EXPECT_NE(std::string(hex.status().message()).find("hex digits"),
            std::string::npos)
      << hex.status();
}

RunResult FailedWith(const std::string& error) {
  RunResult r;
  r.status = RunStatus::kFailed;
  r.errors.push_back(error);
  return r;
}

TEST(ResultJson, HasSchemaStatusAndRounds) {
  RunResult r = FailedWith("boom");
  RoundResult save;
  save.phase = Phase::kSave;
  save.index = 1;
  save.bytes = 10;
  save.seconds = 0.5;
  save.ops["write"].Record(1000000);
  r.rounds.push_back(save);
  auto j = nlohmann::json::parse(ResultToJson(r));
  EXPECT_EQ(j["schema"], "ckptbench.result/v1");
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["errors"][0], "boom");
  EXPECT_EQ(j["rounds"][0]["phase"], "save");
  EXPECT_EQ(j["rounds"][0]["op_latency"]["write"]["count"], 1);
  EXPECT_FALSE(j["rounds"][0].contains("verified"));
  EXPECT_EQ(j["summary"]["save"]["count"], 1);
  EXPECT_EQ(j["summary"]["save"]["bytes"], 10);
  EXPECT_DOUBLE_EQ(j["summary"]["save"]["total_seconds"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["summary"]["save"]["total_throughput_mib_s"].get<double>(),
                   20.0 / (1 << 20));
}

// Errors quoting a garbage file and paths with a 0xFF byte aborted the run
// (nlohmann type_error 316) instead of writing its result.
// Issue 27: in one process with its node (ckptbench run), no credential
// the process holds reaches result.json, in any encoding, whatever quotes it.
TEST(ResultJson, CredentialsTheProcessHoldsAreRedacted) {
  ClearSecretsForTesting();
  const std::string token = "ya29.a0AfH6SMBx-Result/Json+Token";
  RegisterSecret(token);
  RunResult r;
  r.status = RunStatus::kFailed;
  r.errors.push_back("HTTP 401: Authorization: Bearer " + token);
  r.notes.push_back("echoed \"" + token + "\"");
  const std::string text = ResultToJson(r);
  ClearSecretsForTesting();
  EXPECT_EQ(text.find("Result/Json"), std::string::npos) << text;
  EXPECT_EQ(text.find("Result\\/Json"), std::string::npos) << text;
  EXPECT_NE(text.find("Bearer [redacted]"), std::string::npos) << text;
}

TEST(ResultJson, InvalidUtf8IsEscapedNotFatal) {
  RunResult r = FailedWith("/ck/.metadata: garbage \xFF\xFE at byte 0");
  r.config.push_back({"storage.path", "CKPT_DIR_PATH", "/tmp/\xFF", "env"});
  r.model = "m\xC0";
  std::string text;
  ASSERT_NO_THROW(text = ResultToJson(r));
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["errors"][0], "/ck/.metadata: garbage \\xFF\\xFE at byte 0");
  EXPECT_EQ(j["config"]["storage.path"]["value"], "/tmp/\\xFF");
  EXPECT_EQ(j["plan"]["model"], "m\\xC0");
}

}  // namespace
}  // namespace ckpt
