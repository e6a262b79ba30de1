// ResultFromJson: result.json read back into the types that wrote it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/json_codec.h"
#include "coordinator/result_foreign.h"
#include "coordinator/summary.h"
#include "coordinator/workload_registry.h"
#include "tests/testing/visibility_fixture.h"

namespace ckpt {
namespace {

using nlohmann::json;

Histogram Latencies() {
  Histogram h;
  for (uint64_t ns : {7ull, 1'000'000ull, 1'200'000ull, 250'000'000ull}) {
    h.Record(ns);
  }
  return h;
}

// Every section ResultToJson writes, with values unlike their defaults.
RunResult Everything() {
  RunResult r;
  r.status = RunStatus::kFailed;
  r.errors = {"load round 2 failed: node 1 (h1): checksum mismatch"};
  r.notes = {"a note"};
  r.leftovers = {"s3://b/ckpt/step-3 (a failed save)"};
  r.run_id = "run-7";
  r.started_at = "2026-11-26T23:00:00Z";
  r.finished_at = "2026-11-26T23:01:00Z";
  r.config = {{"io.block_size", "CKPT_BLOCK_SIZE", "4194304", "default"}};
  r.environment = {"h0", "6.1", 16, 1ull << 34, "s3", "", "", "", "0.9"};
  r.model = "tiny";
  r.model_description = "two layers";
  r.sharding = "fsdp";
  r.fingerprint = "f00d";
  r.layout = "w2";
  r.parameters = 1000;
  r.checkpoint_bytes = 4000;
  r.world_size = 2;
  r.num_nodes = 2;
  r.ranks_per_node = 1;
  r.thread_count = 3;
  r.files = 4;
  r.clocks = {{1, "h1", 0.25, 0.5}};
  r.sweep = {"exp", 2, 6, "run-3", "K=1", 2, {{"K", "1"}}};
  SetGoodputAt(&r, 86400, 600);
  ReshardResult rs;
  rs.mode = ReshardReads::kRanges;
  rs.from_world = 2;
  rs.to_world = 4;
  rs.from_layout = "w2";
  rs.to_layout = "w4";
  rs.bytes_needed = 4000;
  rs.bytes_read = 4096;
  rs.read_amplification = 1.024;
  rs.planning_seconds = 0.01;
  rs.ranks = {{3, 1, 1000, 1024, 2, 3, {0, 1}}};
  SetReshard(&r, rs);
  for (const Phase phase : {Phase::kSave, Phase::kLoad}) {
    RoundResult round;
    round.phase = phase;
    round.index = 1;
    round.step = 9;
    round.seconds = 2.5;
    round.transfer_seconds = 2.25;
    round.commit_seconds = 0.125;
    round.bytes = 4000;
    round.throughput_mib_s = 1.5;
    round.flags = {RoundFlag::kShortPhase, RoundFlag::kClientBound};
    round.client_bound = "node 0: data 95%";
    round.rank_shift = 1;
    round.resharded = true;
    round.read_amplification = 1.024;
    round.bytes_read = 4096;
    round.verified = true;
    round.checked_bytes = round.planned_bytes = 4000;
    round.checked_files = round.planned_files = 4;
    round.cache = {"fadvise_dontneed", 5, 6, "a note", "overlay: probe"};
    // A save's (the writer wrote a load's never).
    if (phase == Phase::kSave) SetVisibility(&round, SeenOnTheThirdPoll());
    round.clocks = {{1, "", 0.25, 0.5}};
    round.start_spread_seconds = 0.001;
    round.requests = 10;
    round.retries = 2;
    round.throttles = 1;
    round.backoff_seconds = 0.5;
    round.new_connections = 3;
    round.cpu_user_seconds = 1.5;
    round.cpu_system_seconds = 0.5;
    round.host_cpu_busy = 0.75;
    round.ops["write"] = Latencies();
    round.ops["open"] = Histogram();
    NodeResult n;
    n.node = 1;
    n.host = "h1";
    n.ranks = {1};
    n.bytes = 2000;
    n.seconds = 2.0;
    n.throughput_mib_s = 1.0;
    n.first_done_seconds = 1.5;
    n.last_done_seconds = 2.0;
    n.dir_sync_seconds = 0.01;
    n.start_lag_seconds = 0.002;
    n.cpu_user_seconds = 0.75;
    n.cpu_system_seconds = 0.25;
    n.host_cpu_busy = 0.5;
    n.data_busy = 0.25;
    n.cpu_busy = 0.125;
    n.cpus = 16;
    n.filesystem = "ext4";
    n.mount_point = "/";
    n.mount_options = "rw";
    n.requests = 5;
    n.retries = 1;
    n.throttles = 1;
    n.backoff_seconds = 0.25;
    n.memory_available_bytes = 1ull << 30;
    n.peak_rss_bytes = 5ull << 26;
    n.new_connections = 2;
    n.staging = {0.5, 2000, 0.25, 1.75, 3.0, 2.5, 2000, false};
    n.read_from_nodes = {0};
    round.nodes = {n};
    RankResult k;
    k.rank = 1;
    k.node = 1;
    k.bytes = 2000;
    k.first_byte_seconds = 0.01;
    k.seconds = 2.0;
    k.verified = true;
    k.read_rank = 0;
    k.read_from_node = 0;
    k.data_seconds = 0.5;
    k.io_seconds = 1.0;
    k.sync_seconds = 0.25;
    k.wait_seconds = 0.125;
    k.requests = 5;
    k.retries = 1;
    round.ranks = {k};
    round.files = {{1, 1, 0, "__1_0.distcp", 2000, 0.001, 0.002, 1.5, 2.0, 0.5,
                    1.0, 0.25, 5, 1}};
    round.stragglers = {{1, "h1", 2.0, 1.5, "start lag", {"__1_0.distcp"}}};
    round.staging.accelerator = Accelerator::kGpu;
    round.staging.async = true;
    round.staging.copy_bytes = 4000;
    round.staging.copy_seconds = 0.5;
    round.staging.copy_gib_s = 8;
    round.staging.staging_gib_s = 16;
    round.staging.pinned = true;
    round.staging.blocking_seconds = 0.25;
    round.staging.persist_seconds = 2.0;
    round.staging.compute_seconds = 3.0;
    round.staging.compute_baseline_seconds = 2.5;
    round.staging.compute_slowdown = 1.2;
    round.staging.slowdown_seconds = 0.5;
    round.staging.fell_behind = true;
    round.staging.checkpoint_cost_seconds = 0.75;
    round.staging.staged_bytes = 4000;
    r.rounds.push_back(round);
  }
  return r;
}

TEST(ResultFromJson, ReadsBackEverythingResultToJsonWrites) {
  const std::string written = ResultToJson(Everything());
  auto back = ResultFromJson(written, "result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  // Written again, the same file: every field came back (the summary and
  // goodput are derived from them, so they match too).
  EXPECT_EQ(ResultToJson(*back), written);
  EXPECT_TRUE(json::parse(written).contains("goodput"));
  EXPECT_EQ(back->rounds[1].ops.at("write").Percentile(0.5),
            Latencies().Percentile(0.5));
  EXPECT_NE(VisibilityOf(back->rounds[0]), nullptr);
  ASSERT_NE(ReshardOf(*back), nullptr);
  EXPECT_EQ(ReshardOf(*back)->ranks[0].from_ranks,
            (std::vector<uint32_t>{0, 1}));
}

TEST(ResultFromJson, AnOlderResultWithoutNewerFieldsReads) {
  // A result of an earlier version: fields it lacks keep their defaults.
  auto r = ResultFromJson(
      R"({"schema": "ckptbench.result/v1", "status": "ok",
          "rounds": [{"phase": "save", "index": 1, "seconds": 2.0,
                      "bytes": 1048576, "throughput_mib_s": 0.5,
                      "cpu": {"user_seconds": 0.25}, "mean_ms": null}],
          "future_section": {"x": [1, 2]}})",
      "old/result.json");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->rounds.size(), 1u);
  EXPECT_EQ(r->rounds[0].seconds, 2.0);
  EXPECT_EQ(r->rounds[0].cpu_user_seconds, 0.25);
  EXPECT_EQ(r->rounds[0].status, RunStatus::kOk);  // the default
  EXPECT_TRUE(r->rounds[0].nodes.empty());
  EXPECT_EQ(r->Summarize(Phase::kSave).count, 1);
}

// result.json names a run's and a round's workload unless it is
// run.workload's default (the checkpoint's: a file that names none, as
// every file before there were other workloads, is the checkpoint's), and
// reads it back either way.
TEST(ResultFromJson, NamesEveryWorkloadButTheDefaultAndReadsItBack) {
  for (const std::string& name : WorkloadRegistry::BuiltIn().Names()) {
    RunResult r;
    r.workload = name;
    r.rounds.emplace_back().workload = name;
    const nlohmann::json j = nlohmann::json::parse(ResultToJson(r));
    const bool named = name != Config().run.workload;
    EXPECT_EQ(j.contains("workload"), named) << name;
    EXPECT_EQ(j["rounds"][0].contains("workload"), named) << name;
    if (named) {
      EXPECT_EQ(j["workload"], name);
    }
    auto back = ResultFromJson(j.dump(), "result.json");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->workload, name);
    EXPECT_EQ(back->rounds[0].workload, name);
  }
}

TEST(ResultFromJson, AFieldOfTheWrongTypeIsRefusedNamingItsPath) {
  json j = json::parse(ResultToJson(Everything()));
  j["rounds"][1]["nodes"][0]["seconds"] = "fast";
  auto r = ResultFromJson(j.dump(), "sweep/run-1/result.json");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  EXPECT_EQ(r.status().message(),
            "sweep/run-1/result.json: rounds[1].nodes[0].seconds: expected a "
            "number, found the string \"fast\"");

  j = json::parse(ResultToJson(Everything()));
  j["rounds"][0]["bytes"] = -1;
  r = ResultFromJson(j.dump(), "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                "rounds[0].bytes: expected a whole number from 0, found the "
                "number -1"),
            std::string::npos)
      << r.status();

  j = json::parse(ResultToJson(Everything()));
  j["rounds"][0]["flags"] = {"short_phase", 7};
  r = ResultFromJson(j.dump(), "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                "rounds[0].flags[1]: expected one of client_bound, "
                "memory_backed, not_visible, page_cache_allowed, "
                "page_cache_resident, short_phase, unverified, found the "
                "number 7"),
            std::string::npos)
      << r.status();

  j = json::parse(ResultToJson(Everything()));
  j["plan"] = "tiny";
  r = ResultFromJson(j.dump(), "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                "plan: expected an object, found the string \"tiny\""),
            std::string::npos)
      << r.status();
}

TEST(ResultFromJson, AnotherSchemaOrNotJsonIsRefused) {
  auto r = ResultFromJson(R"({"schema": "ckptbench.result/v9"})", "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "r.json: schema \"ckptbench.result/v9\"; expected "
            "ckptbench.result/v1");
  r = ResultFromJson("{\"status\": \"ok\"", "cut.json");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsDataLoss(r.status())) << r.status();
  EXPECT_EQ(r.status().message(), "cut.json: not a JSON object");
}

// A member this build does not read, in the middle of the run's object and
// of a round's (a newer build's section placed before the rounds, or at a
// round's head), is written back where it was: the file again, byte for
// byte.
TEST(ResultFromJson, AMemberThisBuildDoesNotReadIsWrittenBackWhereItWas) {
  using ordered = nlohmann::ordered_json;
  const ordered written = ordered::parse(ResultToJson(Everything()));
  // `o` with `member` inserted before `next`.
  auto insert = [](const ordered& o, const std::string& next,
                   const std::string& member, const ordered& value) {
    ordered out = ordered::object();
    for (const auto& [key, v] : o.items()) {
      if (key == next) out[member] = value;
      out[key] = v;
    }
    return out;
  };
  ordered j = insert(written, "rounds", "fleet", {{"replicas", 8}});
  j["rounds"][0] = insert(j["rounds"][0], "phase", "replica", {{"n", 1}});
  j["rounds"][0]["tail_part"] = {1, 2};  // at the end: stays there
  const std::string text = j.dump(2) + "\n";
  auto back = ResultFromJson(text, "r.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->rounds[0].foreign.sections.size(), 2u);
  EXPECT_EQ(ResultToJson(*back), text);
}

// A result.json of a workload this build does not know (another build's),
// with sections and round members it has no reader for: read, not refused;
// written back with them as they were; and the summary names what it did
// not read, escaped. Past the bounds (a long name, too many sections) the
// file is refused naming where.
TEST(ResultFromJson, AWorkloadThisBuildDoesNotKnowIsCarriedThroughAndSaidSo) {
  json j = json::parse(ResultToJson(Everything()));
  j["workload"] = "serving";
  j["serving"] = {{"replicas", 8}, {"model", "llama-3-8b"}};
  j["cold_start"] = json::array({1.5, 2.25});
  j["rounds"][0]["workload"] = "serving\x1b[2J";
  j["rounds"][0]["fleet_wave"] = {{"seconds", 3.5}};
  auto back = ResultFromJson(j.dump(), "other/result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->foreign.workload, "serving");
  ASSERT_EQ(back->foreign.sections.size(), 2u);
  // In the file's order (this test's json writes its keys sorted).
  EXPECT_EQ(back->foreign.sections[0].first, "cold_start");
  EXPECT_EQ(back->foreign.sections[1].first, "serving");
  EXPECT_EQ(back->rounds[0].foreign.workload, "serving\x1b[2J");
  ASSERT_EQ(back->rounds[0].foreign.sections.size(), 1u);
  EXPECT_EQ(back->rounds[0].foreign.sections[0].first, "fleet_wave");
  EXPECT_TRUE(back->rounds[1].foreign.empty());

  // Written again: every member as it was. The summary and goodput are
  // the checkpoint's figures, derived again without the foreign round.
  json again = json::parse(ResultToJson(*back));
  for (json* x : {&j, &again}) {
    x->erase("summary");
    x->erase("goodput");
  }
  EXPECT_EQ(again, j);

  const std::string table = SummaryTable(*back);
  EXPECT_NE(table.find("ckptbench failed: serving on "), std::string::npos)
      << table;
  EXPECT_NE(table.find("note: read back: workload 'serving' (unknown to this "
                       "build); sections carried through unread: cold_start, "
                       "serving\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("note: read back: round 1 of rounds[]: workload "
                       "'serving\\x1B[2J' (unknown to this build); sections "
                       "carried through unread: fleet_wave\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find('\x1b'), std::string::npos) << "escaped";
  EXPECT_EQ(table.find("phase    n"), std::string::npos)
      << "no checkpoint phases for another workload's run: " << table;

  json long_name = j;
  long_name["workload"] = std::string(kMaxForeignName + 1, 'w');
  auto refused = ResultFromJson(long_name.dump(), "r.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "r.json: workload: expected a workload's name of 1 to 64 "
                "bytes"),
            std::string::npos)
      << refused.status();
  json many = j;
  for (size_t i = 0; i <= kMaxForeignSections; ++i) {
    many[absl::StrCat("extra_", i)] = i;
  }
  refused = ResultFromJson(many.dump(), "r.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("expected at most 64 members this "
                                            "build does not read"),
            std::string::npos)
      << refused.status();
  // Nested deeper than a reader's stack should follow: refused, not read.
  const std::string deep =
      std::string(100'000, '[') + "1" + std::string(100'000, ']');
  std::string text = j.dump();
  text.insert(text.size() - 1, ",\"abyss\":" + deep);
  refused = ResultFromJson(text, "r.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "r.json: abyss: expected a member nested at most 32 deep"),
            std::string::npos)
      << refused.status();
  // A key from the file is escaped in the error.
  json odd = j;
  odd["extra\x1b[2J"] = std::string(1, 'v');
  for (int i = 0; i < 40; ++i) {
    odd["extra\x1b[2J"] = json::array({odd["extra\x1b[2J"]});
  }
  refused = ResultFromJson(odd.dump(), "r.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(std::string(refused.status().message()).find('\x1b'),
            std::string::npos)
      << refused.status();
}

// Many rounds with parts not read: a few are named, the rest counted.
TEST(ResultFromJson, ManyForeignRoundsAreNamedAFewThenCounted) {
  RunResult r;
  for (int i = 0; i < 20; ++i) {
    RoundResult round;
    round.index = i + 1;
    round.foreign.workload = "serving";
    r.rounds.push_back(round);
  }
  const std::vector<std::string> lines = ForeignLines(r);
  ASSERT_EQ(lines.size(), kMaxForeignRoundLines + 1);
  EXPECT_EQ(lines.back(), "12 more round(s) with parts not read");
}

}  // namespace
}  // namespace ckpt
