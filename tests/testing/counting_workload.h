// A test-only second workload for the round protocol: every node counts
// items (sleeping a little on each) and reports its count; midway each
// node asks the coordinator for an action, which answers once every node
// has asked (a barrier, the shape of a data epoch's checkpoint every N
// batches); one node can be told to fail. It shows that a workload plugs
// into the protocol (coordinator/round/round_workload.h on one side,
// node/round/node_workload.h on the other) without touching it.
#ifndef CKPTBENCH_TESTS_TESTING_COUNTING_WORKLOAD_H_
#define CKPTBENCH_TESTS_TESTING_COUNTING_WORKLOAD_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "coordinator/round/round_workload.h"
#include "node/round/node_workload.h"
#include "testing/proto/ckptbench_test/counting.pb.h"

namespace ckpt {

inline constexpr char kCountingWorkload[] = "counting";

// The node's side, for NodeWorkloads / NodeSessionOptions::workloads.
NodeWorkloads CountingNodeWorkloads();

struct CountingSpec {
  uint32_t items = 20;
  double item_seconds = 0.01;
  uint32_t ask_at = 10;  // 0: no ask
  int fail_node = -1;
  uint32_t fail_at = 0;
  double stagger_seconds = 0;  // node i starts i times this late
};

// The coordinator's side of one round.
class CountingRound : public RoundWorkload {
 public:
  CountingRound(size_t nodes, CountingSpec spec, int index = 1)
      : nodes_(nodes), spec_(spec), index_(index) {}

  void Begin(RoundResult* result) override;
  std::string Title(RoundNameForm form) const override;
  uint64_t ProgressBytes() const override;
  PhaseJob BuildPrepare(size_t node) override;
  double StartDelaySeconds(size_t node) const override {
    return spec_.stagger_seconds * static_cast<double>(node);
  }
  void OnAction(size_t node, const ActionAsk& ask,
                ActionReplyFn reply) override;
  absl::Status CheckReport(size_t node, const PhaseOutcome& report,
                           const std::string& who) override;
  void Aggregate(const std::vector<PhaseOutcome>& reports,
                 const std::vector<PrepareOutcome>& prepared,
                 RoundResult* result) override;
  void Conclude(const std::vector<PrepareOutcome>& prepared,
                int64_t finished_unix_ns, RoundResult* result) override;

  // What the test checks afterwards.
  std::vector<ckptbench::test::CountReport> reports() const;
  int asks() const;
  int aggregations() const { return aggregations_; }
  bool concluded() const { return concluded_; }
  // The round's seconds as Aggregate saw them (its clock had stopped).
  double seconds_at_aggregate() const { return seconds_at_aggregate_; }

 private:
  const size_t nodes_;
  const CountingSpec spec_;
  const int index_;
  mutable std::mutex mu_;
  std::vector<std::pair<ActionAsk, ActionReplyFn>> waiting_;
  int asks_ = 0;
  uint64_t actions_ = 0;
  std::vector<ckptbench::test::CountReport> reports_;
  std::atomic<int> aggregations_{0};
  std::atomic<bool> concluded_{false};
  double seconds_at_aggregate_ = -1;
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_COUNTING_WORKLOAD_H_
