// FlagClientBound: a round whose node spent most of its file threads' time
// making or checking bytes, or most of its CPUs, is flagged and says why.
#include "coordinator/client_check.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ckpt {
namespace {

NodeResult Node(int index, double data_busy, double cpu_busy) {
  NodeResult n;
  n.node = index;
  n.host = "h" + std::to_string(index);
  n.data_busy = data_busy;
  n.cpu_busy = cpu_busy;
  n.cpus = 2;
  return n;
}

RoundResult Round(Phase phase, std::vector<NodeResult> nodes) {
  RoundResult r;
  r.phase = phase;
  r.index = 1;
  r.status = RunStatus::kOk;
  r.seconds = 10;
  r.nodes = std::move(nodes);
  return r;
}

bool Flagged(const RoundResult& r) {
  return std::count(r.flags.begin(), r.flags.end(), RoundFlag::kClientBound) ==
         1;
}

TEST(ClientCheck, BusyFileThreadsMakeTheRoundClientBoundNamingTheNode) {
  RoundResult r = Round(Phase::kSave, {Node(0, 0.10, 0.2), Node(1, 0.93, 0.5)});
  FlagClientBound(&r);
  EXPECT_TRUE(Flagged(r));
  EXPECT_NE(r.client_bound.find("node 1 (h1)"), std::string::npos)
      << r.client_bound;
  EXPECT_NE(r.client_bound.find("93% of their time generating and "
                                "checksumming"),
            std::string::npos)
      << r.client_bound;
  RoundResult load = Round(Phase::kLoad, {Node(0, 0.85, 0.1)});
  FlagClientBound(&load);
  EXPECT_NE(load.client_bound.find("85% of their time verifying"),
            std::string::npos)
      << load.client_bound;
}

TEST(ClientCheck, StagedCopiesFillingTheNodesMemoryAreClientBound) {
  // 6 GiB staged with 1 GiB left: 6/7 = 86% of what the node had.
  NodeResult full = Node(0, 0.2, 0.3);
  full.staging.staged_bytes = 6ull << 30;
  full.memory_available_bytes = 1ull << 30;
  RoundResult r = Round(Phase::kSave, {full});
  r.staging.async = true;
  FlagClientBound(&r);
  EXPECT_TRUE(Flagged(r));
  EXPECT_NE(r.client_bound.find("node 0 (h0): its staged copies held 6.00 "
                                "GiB, 86% of the memory it had"),
            std::string::npos)
      << r.client_bound;
  // 3 GiB staged with 1 GiB left is 75%: not yet; unknown memory: never.
  NodeResult roomy = full;
  roomy.staging.staged_bytes = 3ull << 30;
  RoundResult ok = Round(Phase::kSave, {roomy});
  FlagClientBound(&ok);
  EXPECT_FALSE(Flagged(ok)) << ok.client_bound;
  NodeResult unknown = full;
  unknown.memory_available_bytes = 0;
  RoundResult u = Round(Phase::kSave, {unknown});
  FlagClientBound(&u);
  EXPECT_FALSE(Flagged(u));
}

TEST(ClientCheck, AProcessUsingItsCpusIsClientBoundToo) {
  RoundResult r = Round(Phase::kSave, {Node(0, 0.30, 0.95)});
  FlagClientBound(&r);
  EXPECT_TRUE(Flagged(r));
  EXPECT_NE(r.client_bound.find("used 95% of the 2 CPUs"), std::string::npos)
      << r.client_bound;
}

TEST(ClientCheck, TheNodeNearestItsLimitIsNamedAndTheOthersCounted) {
  RoundResult r = Round(Phase::kSave, {Node(0, 0.81, 0.1), Node(1, 0.2, 0.99),
                                       Node(2, 0.95, 0.1)});
  FlagClientBound(&r);
  // 0.95/0.8 = 1.19 beats 0.99/0.9 = 1.10 and 0.81/0.8 = 1.01.
  EXPECT_EQ(r.client_bound.rfind("node 2 (h2)", 0), 0u) << r.client_bound;
  EXPECT_NE(r.client_bound.find("; 2 other nodes were too"), std::string::npos)
      << r.client_bound;
}

// An async save's process runs the simulated training on purpose: its CPU
// share is no sign of the tool's limit; its data path's share still is.
TEST(ClientCheck, AnAsyncSaveIsJudgedByItsDataPathAlone) {
  RoundResult busy_cpu = Round(Phase::kSave, {Node(0, 0.30, 2.5)});
  busy_cpu.staging.async = true;
  FlagClientBound(&busy_cpu);
  EXPECT_FALSE(Flagged(busy_cpu)) << busy_cpu.client_bound;
  RoundResult busy_data = Round(Phase::kSave, {Node(0, 0.90, 2.5)});
  busy_data.staging.async = true;
  FlagClientBound(&busy_data);
  EXPECT_TRUE(Flagged(busy_data));
  EXPECT_NE(busy_data.client_bound.find("90% of their time generating"),
            std::string::npos)
      << busy_data.client_bound;
}

TEST(ClientCheck, BelowBothLimitsOrUntimedFailedOrShortIsNotFlagged) {
  RoundResult calm = Round(Phase::kSave, {Node(0, 0.79, 0.89)});
  FlagClientBound(&calm);
  EXPECT_FALSE(Flagged(calm));
  EXPECT_EQ(calm.client_bound, "");
  RoundResult staged = Round(Phase::kSave, {Node(0, 0.99, 0.99)});
  staged.staged = true;
  FlagClientBound(&staged);
  EXPECT_FALSE(Flagged(staged));
  RoundResult failed = Round(Phase::kSave, {Node(0, 0.99, 0.99)});
  failed.status = RunStatus::kFailed;
  FlagClientBound(&failed);
  EXPECT_FALSE(Flagged(failed));
  // Under a second (short_phase) the shares are noise: not judged.
  RoundResult brief = Round(Phase::kLoad, {Node(0, 0.99, 0.99)});
  brief.seconds = 0.013;
  FlagClientBound(&brief);
  EXPECT_FALSE(Flagged(brief));
}

}  // namespace
}  // namespace ckpt
