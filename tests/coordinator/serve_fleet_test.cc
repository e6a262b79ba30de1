// A serving fleet's load rounds: replicas started apart by serve.stagger,
// as an autoscaler adds them, each one's start and its time to loaded from
// that start; the fleet's distribution and its slowest replicas named
// with why (FleetOf); a stagger past the round protocol's wait refused.
#include "coordinator/serving/serve_fleet.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/serving/serve_job.h"
#include "common/serving/serve_options.h"
#include "coordinator/json_codec.h"
#include "coordinator/serving/serve_results.h"
#include "coordinator/serving/serve_run.h"
#include "coordinator/summary.h"
#include "node/storage/memory_storage.h"
#include "tests/testing/inprocess_run.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;
using Replica = ReplicaLoadResult::Replica;

Replica At(int node, double start, double loaded) {
  Replica p;
  p.node = node;
  p.start_seconds = start;
  p.loaded_seconds = loaded;
  p.load_seconds = start + loaded;
  p.first_byte_seconds = start + 0.1;
  p.mib_per_second = 100;
  return p;
}

TEST(ServeFleet, LoadedTimesAreFromEachStartAndTheSlowestSayWhy) {
  std::vector<Replica> fleet;
  for (int i = 0; i < 10; ++i) fleet.push_back(At(i, 0.5 * i, 1.0 + 0.1 * i));
  // Node 9: throttled; node 8: a late first byte; node 7: a slow read.
  fleet[9].throttles = 12;
  fleet[9].retries = 12;
  fleet[8].first_byte_seconds = fleet[8].start_seconds + 0.9;
  fleet[7].mib_per_second = 40;
  const ReplicaLoadResult::Fleet f = FleetOf(fleet);
  // Nearest rank of 1.0 .. 1.9: p50 the 5th, p90 the 9th.
  EXPECT_DOUBLE_EQ(f.loaded_p50_seconds, 1.4);
  EXPECT_DOUBLE_EQ(f.loaded_p90_seconds, 1.8);
  EXPECT_DOUBLE_EQ(f.loaded_max_seconds, 1.9);
  EXPECT_DOUBLE_EQ(f.first_start_seconds, 0);
  // The last (node 9) started at 4.5 s and took 1.9 s.
  EXPECT_DOUBLE_EQ(f.all_loaded_seconds, 6.4);
  ASSERT_EQ(f.slowest.size(), 3u);
  EXPECT_EQ(f.slowest[0].node, 9);
  EXPECT_EQ(f.slowest[0].why, "12 throttles; 12 retries");
  EXPECT_EQ(f.slowest[1].node, 8);
  EXPECT_THAT(f.slowest[1].why,
              HasSubstr("first byte after 0.900 s (median 0.100 s)"));
  EXPECT_EQ(f.slowest[2].node, 7);
  EXPECT_THAT(f.slowest[2].why,
              HasSubstr("read at 40.0 MiB/s (median 100.0 MiB/s)"));
  // A fleet as fast as its median names nobody.
  std::vector<Replica> even;
  for (int i = 0; i < 4; ++i) even.push_back(At(i, 0.1 * i, 2.0));
  EXPECT_TRUE(FleetOf(even).slowest.empty());
  // Of two, the slower is named against the other: its rate, not its own.
  std::vector<Replica> two = {At(0, 0, 6.1), At(1, 3, 4.5)};
  two[0].mib_per_second = 2512.7;
  two[1].mib_per_second = 3438.0;
  const ReplicaLoadResult::Fleet pair = FleetOf(two);
  ASSERT_EQ(pair.slowest.size(), 1u);
  EXPECT_EQ(pair.slowest[0].node, 0);
  EXPECT_EQ(pair.slowest[0].why, "read at 2512.7 MiB/s (median 3438.0 MiB/s)");
  // One replica: its figures, nobody named; none: zeros.
  const ReplicaLoadResult::Fleet one = FleetOf({At(0, 0.2, 3)});
  EXPECT_DOUBLE_EQ(one.loaded_p90_seconds, 3);
  EXPECT_DOUBLE_EQ(one.all_loaded_seconds, 3);
  EXPECT_TRUE(one.slowest.empty());
  EXPECT_DOUBLE_EQ(FleetOf({}).loaded_max_seconds, 0);
}

// Each replica's requests per object, summed per object over the fleet:
// the one every replica read and met throttles on comes first, with how
// many replicas read it and how many met them; the summary names it (its
// name escaped), and result.json carries both views back the same.
TEST(ServeFleet, TheObjectsTheStoreThrottledAreNamedWithTheirReplicas) {
  std::vector<Replica> fleet = {At(0, 0, 2), At(1, 1, 2), At(2, 2, 2)};
  fleet[0].objects = {{"a.safetensors", 10, 0, 0},
                      {"hot.safetensors", 20, 4, 4}};
  fleet[1].objects = {{"a.safetensors", 10, 1, 1},
                      {"hot.safetensors", 20, 6, 6}};
  fleet[2].objects = {{"hot.safetensors", 20, 0, 0}};
  const std::vector<ReplicaLoadResult::HotObject> hot = HotObjectsOf(fleet);
  ASSERT_EQ(hot.size(), 2u);
  EXPECT_EQ(hot[0].name, "hot.safetensors");
  EXPECT_EQ(hot[0].replicas, 3u);
  EXPECT_EQ(hot[0].throttled_replicas, 2u);
  EXPECT_EQ(hot[0].requests, 60u);
  EXPECT_EQ(hot[0].throttles, 10u);
  EXPECT_EQ(hot[1].name, "a.safetensors");
  EXPECT_EQ(hot[1].replicas, 2u);
  EXPECT_EQ(hot[1].throttled_replicas, 1u);
  EXPECT_TRUE(HotObjectsOf({At(0, 0, 1)}).empty());  // a file system's
  // A file's figures past their whole (hostile) read as all of it.
  EXPECT_EQ(ReplicaLoadResult::Percent(UINT64_MAX, 1), 100);
  EXPECT_EQ(ReplicaLoadResult::Percent(1, 0), 0);

  ReplicaLoadResult load;
  load.replicas = fleet;
  load.replicas[2].objects.push_back({"x\x1b[31m.safetensors", 5, 2, 2});
  load.objects = HotObjectsOf(load.replicas);
  const std::string text = load.ToJson(RunResult{});
  auto back = ReplicaLoadSectionCodec().read(text, kReplicaLoadSection);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)->ToJson(RunResult{}), text);
  RunResult run;
  run.workload = kServeWorkload;
  RoundResult round;
  round.phase = Phase::kLoad;
  round.sections[kReplicaLoadSection] =
      std::make_shared<ReplicaLoadResult>(load);
  run.rounds.push_back(round);
  const std::string summary = SummaryTable(run);
  EXPECT_THAT(summary, HasSubstr("throttled objects: hot.safetensors 10 "
                                 "throttles of 60 requests (2 of 3 replicas)"));
  EXPECT_THAT(summary, HasSubstr("x\\x1B[31m.safetensors 2 throttles"));
  EXPECT_EQ(summary.find('\x1b'), std::string::npos);
}

Config FleetConfig(double stagger) {
  Config c;
  c.run.workload = kServeWorkload;
  c.model.name = "llama-3-tiny";
  c.cluster.num_devices = "2";
  ServeOf(c).path = "mem://bucket/models/fleet";
  ServeOf(c).file_bytes = 1 << 20;
  ServeOf(c).chunk_bytes = 64 << 10;
  ServeOf(c).stagger_seconds = stagger;
  return c;
}

// Three replicas, 0.3 s apart: each starts at its stagger (the make round
// is not staggered), its time to loaded counted from there, every byte
// verified; the fleet's line in the summary and its figures in
// result.json, read back the same. (The make round is not staggered:
// StartDelaySeconds is a load's only.)
TEST(ServeFleet, AStaggeredFleetStartsEachReplicaLateByItsStagger) {
  auto memory = std::make_shared<MemoryStore>();
  InProcessRun h(memory, FleetConfig(0.3), 3);
  const absl::Status run = h.Run();
  ASSERT_TRUE(run.ok()) << run;
  ASSERT_EQ(h.result.rounds.size(), 2u);  // make, load 1
  const RoundResult& round = h.result.rounds[1];
  const ReplicaLoadResult* load = ReplicaLoadOf(round);
  ASSERT_NE(load, nullptr);
  EXPECT_TRUE(load->verified);
  ASSERT_EQ(load->replicas.size(), 3u);
  for (const Replica& p : load->replicas) {
    SCOPED_TRACE(p.node);
    EXPECT_GE(p.start_seconds, 0.3 * p.node);
    EXPECT_LT(p.start_seconds, 0.3 * p.node + 0.29);
    EXPECT_GE(p.headers_seconds, p.start_seconds);
    EXPECT_DOUBLE_EQ(p.loaded_seconds, p.load_seconds - p.start_seconds);
    EXPECT_GT(p.loaded_seconds, 0);
  }
  // The round runs from the first start to the last replica loaded.
  EXPECT_GE(round.seconds, load->replicas[2].load_seconds - 1e-6);
  EXPECT_GE(load->fleet.all_loaded_seconds, 0.6);
  EXPECT_LE(load->fleet.loaded_p50_seconds, load->fleet.loaded_max_seconds);
  // Only a replica slower than the median is named: of 3, the slowest.
  ASSERT_LE(load->fleet.slowest.size(), 1u);
  for (const auto& s : load->fleet.slowest) {
    EXPECT_GT(s.loaded_seconds, load->fleet.loaded_p50_seconds);
    EXPECT_FALSE(s.why.empty());
  }
  const std::string table = SummaryTable(h.result);
  EXPECT_THAT(table, HasSubstr("fleet of 3: loaded p50 "));
  const std::string text = ResultToJson(h.result);
  EXPECT_THAT(text, HasSubstr("\"all_loaded_seconds\""));
  auto back = ResultFromJson(text, "result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ResultToJson(*back), text);
}

TEST(ServeFleet, AStaggerPastTheProtocolsWaitIsRefusedNamingTheKey) {
  Config c = FleetConfig(200);
  c.cluster.num_nodes = 3;  // the last at 400 s: within 540
  EXPECT_TRUE(CheckServeKeys(c, {}).ok()) << CheckServeKeys(c, {});
  c.cluster.num_nodes = 4;  // 600 s
  EXPECT_THAT(CheckServeKeys(c, {}).message(),
              HasSubstr("serve.stagger (CKPT_SERVE_STAGGER) = 200 s over 4 "
                        "replicas starts the last 600 s after the first"));
}

}  // namespace
}  // namespace ckpt
