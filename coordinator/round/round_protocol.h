// One round across all nodes, for any workload (round_workload.h): prepare
// everywhere (untimed), re-estimate the remote nodes' clocks, one start
// instant on the coordinator's clock (each node gets it on its own, later
// by the workload's delay for that node when it staggers the start), the
// transfer with live progress and the workload's mid-phase actions, the
// first error wins and aborts the others, every report checked once the
// clock stopped, the workload's timed finish (a checkpoint's commit), and
// the aggregation after the clock stopped. It knows no workload: a new one
// implements RoundWorkload and touches nothing here.
// Not thread-safe: one round at a time; the fanout's threads (for nodes
// whose calls block) live as long as the protocol.
#ifndef CKPTBENCH_COORDINATOR_ROUND_ROUND_PROTOCOL_H_
#define CKPTBENCH_COORDINATOR_ROUND_ROUND_PROTOCOL_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"
#include "coordinator/progress.h"
#include "coordinator/results.h"
#include "coordinator/round/node_client.h"
#include "coordinator/round/node_workers.h"
#include "coordinator/round/round_workload.h"

namespace ckpt {

// The most a workload may delay one node's start
// (RoundWorkload::StartDelaySeconds): a node waits at most 600 s for a start
// instant (node/round/phase_start.cc), the start margin included.
inline constexpr double kMaxStartDelaySeconds = 540;

struct RoundIds {
  std::string run_id;
  uint64_t round_id = 0;
  // Set when the run was interrupted: checked once every node is prepared
  // (a node's prepare clears an abort that came before it), so a round
  // interrupted before its start never starts.
  const std::atomic<bool>* interrupted = nullptr;
};

class RoundProtocol {
 public:
  // `progress` may be null; `progress_interval` is what the nodes are
  // asked for (seconds between their Progress messages).
  RoundProtocol(std::vector<NodeClient*> nodes, ProgressPrinter* progress,
                double progress_interval);

  // Runs `workload` once. The result is filled even on failure (status
  // "failed", error and its kind set).
  RoundResult Run(RoundWorkload& workload, const RoundIds& ids);

  const std::vector<NodeClient*>& nodes() const { return nodes_; }
  NodeFanout& fanout() { return fanout_; }

 private:
  struct Round;
  // The round's start: on the coordinator's wall clock (what each node is
  // sent, later by its delay and corrected by its offset) and on its
  // monotonic clock; each node's delay (RoundWorkload::StartDelaySeconds).
  struct Start {
    int64_t unix_ns = 0;
    SteadyClock::time_point steady;
    std::vector<int64_t> delay_ns;
  };
  // Every node prepared (untimed); false, with the round's error noted, if
  // one failed.
  bool PrepareAll(Round& round);
  Start ChooseStart(const RoundWorkload& workload);
  // The transfer, until every node reported or failed; the first error
  // aborts the others.
  void Transfer(Round& round, const Start& start);
  // Every report checked before any of it is used (reply_check.h).
  void CheckReports(Round& round);
  void AbortAll(const std::string& run_id, const std::string& reason);
  // Re-estimates every remote node's clock offset (kClockExchangesPerRound
  // pings, kClockThreads nodes at a time) into the node and the round.
  void ReestimateClocks(RoundResult* result);
  static constexpr int kClockThreads = 16;
  static constexpr int kClockExchangesPerRound = 4;

  std::vector<NodeClient*> nodes_;
  ProgressPrinter* progress_;
  double progress_interval_;
  NodeFanout fanout_;  // for all the protocol's rounds
};

// A node's error during `step` ("" for the phase itself), naming the node
// once: remote nodes' transport errors name it already ("node 1 (vm)
// disconnected"), and then the step follows in parentheses.
std::string NodeError(const NodeClient& n, const std::string& step,
                      absl::string_view msg);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_ROUND_ROUND_PROTOCOL_H_
