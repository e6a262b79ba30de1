// What a workload brings to a node: how it prepares its part of a round
// from the job the coordinator's side of it sent, how it runs that part
// from the common start instant, and what it has done so far. The
// checkpoint is one (node/checkpoint/checkpoint_workload.h); a workload
// of another kind carries its own job and report as its own messages
// (PhaseJob::workload_job, PhaseOutcome::workload_report). The node's side
// of the round protocol (workload_phase.h) does the rest, the same for
// every workload: the start instant, progress messages every interval
// (sent through the reporter in the phase's context, from the thread the
// phase waits or works in: progress_reporter.h), asks to the coordinator
// and their answers, the abort, a retried start answered with the first
// outcome, one phase at a time.
// A node runs the workloads it was built with (NodeWorkloads, handed to
// NodeService, which adds the checkpoint); a round naming another is
// refused at prepare.
#ifndef CKPTBENCH_NODE_ROUND_NODE_WORKLOAD_H_
#define CKPTBENCH_NODE_ROUND_NODE_WORKLOAD_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/phase_job.h"
#include "common/phase_outcome.h"
#include "common/round_messages.h"
#include "node/round/progress_reporter.h"
#include "node/storage/storage_factory.h"

namespace ckpt {

// What a running phase may use besides its job.
struct NodePhaseContext {
  uint64_t round_id = 0;
  // Set once the round is aborted (another node failed, or the
  // coordinator gave up): stop soon. The phase may set it too, to stop
  // its own threads when one fails; its own first error wins over the
  // aborts that follow. Cheap to poll from many threads.
  std::atomic<bool>* abort = nullptr;
  bool aborted() const { return abort->load(std::memory_order_relaxed); }
  // Asks the coordinator's side of the workload for an action and waits
  // for its answer (the workload's own message); fails with Aborted when
  // the round is aborted meanwhile. Thread-safe.
  std::function<absl::StatusOr<std::string>(const std::string& payload)> ask;
  // Sends the phase's progress (NodeWorkload::Progress) every interval
  // from a thread the phase already has: a phase that waits for its own
  // threads waits in progress->AwaitDone; one that works in the calling
  // thread calls progress->SendIfDue now and then. A phase sends progress
  // only through these: none while it waits otherwise (the checkpoint's
  // async staging and step-directory sync send none, as before the round
  // protocol). Set by the protocol: never null.
  ProgressReporter* progress = nullptr;
};

class NodeWorkload {
 public:
  virtual ~NodeWorkload() = default;
  // Untimed: reads `job`; opens what it needs through `storage` (the
  // node's backends for the run). What it says goes back in the prepare
  // reply (a workload that opened no storage of its own says nothing).
  // `abort` is set when the round is aborted meanwhile (a signal, another
  // node's failure): a long prepare (a dataset's listing and index) stops
  // at it with Aborted.
  virtual absl::StatusOr<PrepareOutcome> Prepare(
      PhaseJob job, StorageSet& storage, const std::atomic<bool>& abort) = 0;
  // Timed, from the common start instant (the protocol has slept to it):
  // the phase. Returns the node's report, a failure in its status with
  // its kind (ErrorKindOf); the protocol adds round_id and the start lag.
  virtual PhaseOutcome Run(const NodePhaseContext& ctx) = 0;
  // What the phase has done so far, per rank (a workload of one stream:
  // one entry, in its own units). Called when the phase's progress is
  // sent (NodePhaseContext::progress), possibly from another of its
  // threads while Run runs: thread-safe.
  virtual std::vector<RankProgress> Progress() const = 0;
  // Called once nothing waits on the phase: after its report is on its
  // way, or when it is dropped without having run (the next prepare).
  // Gives back what it holds or freed, at a cost that must not delay a
  // report (the checkpoint trims the heap).
  virtual void GiveBack() {}
};

// The workloads a node runs, by name (PrepareRequest.workload; the
// checkpoint's is ""); each round gets a new instance.
using NodeWorkloadFactory = std::function<std::unique_ptr<NodeWorkload>()>;
using NodeWorkloads = std::map<std::string, NodeWorkloadFactory>;

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_ROUND_NODE_WORKLOAD_H_
