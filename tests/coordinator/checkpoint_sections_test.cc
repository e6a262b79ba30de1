// The checkpoint's section of result.json ("reshard", a resharded
// restore's plan) is a registered ResultSection placed before the rounds:
// written where result.json always had it (right after the clock, before
// the other workloads' sections), read back by its codec with the same
// checks and messages, its member the checkpoint's alone, and carried
// through where it was by a registry without the checkpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/json_codec.h"
#include "coordinator/workload_registry.h"

namespace ckpt {
namespace {

using ordered = nlohmann::ordered_json;

std::vector<std::string> MembersInOrder(const std::string& text) {
  std::vector<std::string> out;
  const ordered j = ordered::parse(text);
  for (const auto& [key, value] : j.items()) {
    out.push_back(key);
  }
  return out;
}

RunResult Resharded() {
  RunResult r;
  ReshardResult rs;
  rs.mode = ReshardReads::kSegments;
  rs.from_world = 2;
  rs.to_world = 3;
  rs.from_layout = "w2";
  rs.to_layout = "w3";
  rs.bytes_needed = 3000;
  rs.bytes_read = 4096;
  rs.read_amplification = 4096.0 / 3000.0;
  rs.ranks.push_back({2, 1, 1000, 2048, 2, 3, {0, 1}});
  SetReshard(&r, rs);
  RoundResult& load = r.rounds.emplace_back();
  load.phase = Phase::kLoad;
  load.resharded = true;
  return r;
}

// Right after the clock, before another workload's section placed before
// the rounds (the checkpoint is registered first), then the rounds; read
// back whole, and the same file written again.
TEST(CheckpointSections, AReshardIsWrittenAfterTheClockAndReadBack) {
  RunResult r = Resharded();
  r.sections[kDatasetSection] = std::make_shared<DatasetResult>();
  const std::string text = ResultToJson(r);
  const std::vector<std::string> members = MembersInOrder(text);
  const auto at = [&members](const std::string& m) {
    return std::find(members.begin(), members.end(), m) - members.begin();
  };
  EXPECT_EQ(at("clock") + 1, at("reshard")) << text;
  EXPECT_EQ(at("reshard") + 1, at("dataset"));
  EXPECT_EQ(at("dataset") + 1, at("rounds"));
  auto back = ResultFromJson(text, "result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  const ReshardResult* rs = ReshardOf(*back);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->mode, ReshardReads::kSegments);
  EXPECT_EQ(rs->to_layout, "w3");
  ASSERT_EQ(rs->ranks.size(), 1u);
  EXPECT_EQ(rs->ranks[0].from_ranks, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(back->foreign.empty());
  EXPECT_EQ(ResultToJson(*back), text);
  // A run that loaded its own layout has none.
  EXPECT_FALSE(ordered::parse(ResultToJson(RunResult{})).contains("reshard"));
}

// A wrong field is named by its path from the run's object, as when
// result.json's own reader read it.
TEST(CheckpointSections, AWrongReshardFieldIsNamedByItsPath) {
  ordered j = ordered::parse(ResultToJson(Resharded()));
  j["reshard"]["ranks"][0]["from_ranks"] = "0,1";
  auto r = ResultFromJson(j.dump(), "run/result.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()),
            "run/result.json: reshard.ranks[0].from_ranks: expected an "
            "array, found the string \"0,1\"");
  j = ordered::parse(ResultToJson(Resharded()));
  j["reshard"] = ordered::array();
  r = ResultFromJson(j.dump(), "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()),
            "r.json: reshard: expected an object, found array");
}

// "reshard" is the checkpoint's: another workload cannot register a
// section under it; a registry without the checkpoint carries it through
// unread, and writes it back where it was.
TEST(CheckpointSections, TheReshardMemberIsTheCheckpointsAlone) {
  RunWorkloadEntry other("other", [] { return nullptr; });
  other.result.member = kReshardSection;
  other.result.read = WorkloadRegistry::BuiltIn().SectionCodec("reshard")->read;
  other.result.place = ResultPlace::kBeforeRounds;
  auto refused = WorkloadRegistry::BuiltIn().With(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kAlreadyExists);

  const std::string text = ResultToJson(Resharded());
  const WorkloadRegistry without;
  auto back = ResultFromJson(text, "result.json", without);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ReshardOf(*back), nullptr);
  ASSERT_EQ(back->foreign.sections.size(), 1u);
  EXPECT_EQ(back->foreign.sections[0].first, "reshard");
  EXPECT_EQ(ResultToJson(*back, without), text);
}

}  // namespace
}  // namespace ckpt
