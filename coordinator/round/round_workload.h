// What a workload brings to a round (round_protocol.h runs it): the
// checkpoint's save or load (CheckpointRound, coordinator/checkpoint/
// round_runner.h), the dataset workloads' (DatagenRound, DataloadRound in
// coordinator/dataset/), a test's own (tests/testing/counting_workload.h).
// The protocol calls these in order, from one thread unless said:
//   Begin, BuildPrepare for every node, Prepared, StartDelaySeconds
//   (untimed);
//   OnAction whenever a node asks during the transfer (timed);
//   CheckReport for every node, then Finish if no node failed (timed);
//   Aggregate (after the clock stopped, also on failure), Conclude (only
//   on success).
#ifndef CKPTBENCH_COORDINATOR_ROUND_ROUND_WORKLOAD_H_
#define CKPTBENCH_COORDINATOR_ROUND_ROUND_WORKLOAD_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/phase_job.h"
#include "coordinator/results.h"
#include "coordinator/round/node_client.h"

namespace ckpt {

class RoundWorkload {
 public:
  virtual ~RoundWorkload() = default;

  // Names the round in `result` (phase, index) before anything runs.
  virtual void Begin(RoundResult* result) = 0;
  // The round's name on the progress line (kProgress) and in the log
  // (kLog): "save 1" and "save round 1" for the checkpoint
  // (CheckpointRoundName).
  virtual std::string Title(RoundNameForm form) const = 0;
  // The bytes the nodes' progress adds up to.
  virtual uint64_t ProgressBytes() const = 0;

  // Node `node`'s job (run_id and round_id are set by the protocol); a
  // workload other than the checkpoint names itself and sends its own job
  // (PhaseJob::workload). Untimed; called for several nodes at once when
  // their calls block (each on its node's thread).
  virtual PhaseJob BuildPrepare(size_t node) = 0;
  // Every node prepared without error (their outcomes, by node). Untimed.
  virtual void Prepared(const std::vector<PrepareOutcome>& /*prepared*/,
                        RoundResult* /*result*/) {}
  // How long after the round's start instant node `node` starts: a
  // staggered start (replicas of a serving fleet coming up one after
  // another). The default, 0 for every node, is the common start. Each
  // node still gets its instant on its own clock and its start lag is
  // against it; the round's clock runs from the common instant to the
  // last report. Asked once per node after Prepared; a value that is not
  // finite or is below 0 counts as 0, one above kMaxStartDelaySeconds
  // (round_protocol.h) as that.
  virtual double StartDelaySeconds(size_t /*node*/) const { return 0; }

  // A node asked, mid-phase, for an action. Runs on the thread that got
  // the ask (a gRPC thread for a remote node): it must not block; `reply`
  // answers the node, once, from any thread (an answer may wait for the
  // other nodes' asks: a barrier).
  using ActionReplyFn = std::function<void(ActionAnswer)>;
  virtual void OnAction(size_t /*node*/, const ActionAsk& ask,
                        ActionReplyFn reply) {
    reply({ask.round_id,
           ask.action_id,
           absl::FailedPreconditionError(
               "this workload takes no actions mid-phase"),
           {}});
  }

  // Whether node `node`'s report (held by the codec, its round and start
  // lag already checked by the protocol, against the node's clock error)
  // may be used: a refusal fails that node, named by `who`.
  virtual absl::Status CheckReport(size_t node, const PhaseOutcome& report,
                                   const std::string& who) = 0;
  // Every node reported without error; still on the round's clock (the
  // checkpoint's commit). An error fails the round with its kind
  // (ErrorKindOf; Unknown for none) and message, which names the node.
  virtual absl::Status Finish(const std::vector<PhaseOutcome>& /*reports*/,
                              RoundResult* /*result*/) {
    return absl::OkStatus();
  }
  // Sums up the reports (empty for a node that failed or was refused),
  // after the clock stopped; also for a failed round.
  virtual void Aggregate(const std::vector<PhaseOutcome>& reports,
                         const std::vector<PrepareOutcome>& prepared,
                         RoundResult* result) = 0;
  // The round succeeded and is summed up (`finished_unix_ns`: when its
  // clock stopped, on the coordinator's clock): what comes after it,
  // untimed (the checkpoint's time to visible and verification).
  virtual void Conclude(const std::vector<PrepareOutcome>& /*prepared*/,
                        int64_t /*finished_unix_ns*/, RoundResult* /*result*/) {
  }
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_ROUND_ROUND_WORKLOAD_H_
