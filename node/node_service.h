// Translates between the ckptbench.v1 messages and the domain types, and
// delegates: a round, whatever its workload (the checkpoint's, or another
// named by PrepareRequest.workload), to the round protocol's node side
// (WorkloadPhases, node/round/workload_phase.h); the checkpoint's storage
// steps outside rounds (inspect, commit, claims, cleanup, result.json) to
// the NodeAgent. Used by the in-process node client and by the gRPC
// session, so both speak exactly the same contract. Thread-safe.
#ifndef CKPTBENCH_NODE_NODE_SERVICE_H_
#define CKPTBENCH_NODE_NODE_SERVICE_H_

#include <functional>

#include "absl/status/statusor.h"
#include "common/inspection.h"
#include "common/storage_commands.h"
#include "node/node_agent.h"
#include "node/round/node_workload.h"
#include "node/round/workload_phase.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

class NodeService {
 public:
  // mem:// locations are files in `memory` (StorageSet); `workloads` are
  // the ones this node runs besides the checkpoint.
  explicit NodeService(std::shared_ptr<MemoryStore> memory = nullptr,
                       NodeWorkloads workloads = {});

  v1::InspectReply Inspect(const v1::InspectRequest& req);
  // The same as the domain types (common/inspection.h): the one the
  // message is converted to and from.
  absl::StatusOr<Inspection> Inspect(const InspectJob& job);
  v1::PrepareReply Prepare(const v1::PrepareRequest& req);
  // Consumes the request while building the job (less memory at peak).
  v1::PrepareReply Prepare(v1::PrepareRequest&& req);
  // The same as the domain type (common/phase_job.h).
  absl::StatusOr<PrepareOutcome> Prepare(PhaseJob job);
  // Blocks until the phase ends; `on_progress` gets Progress messages, and
  // a workload's asks go out through `send_ask` (null: they are refused),
  // their answers coming back to ActionAnswered.
  v1::PhaseReport StartPhase(
      const v1::StartPhaseRequest& req,
      const std::function<void(const v1::Progress&)>& on_progress,
      const std::function<void(const v1::ActionRequest&)>& send_ask,
      double progress_interval);
  v1::PhaseReport StartPhase(
      const v1::StartPhaseRequest& req,
      const std::function<void(const v1::Progress&)>& on_progress,
      double progress_interval) {
    return StartPhase(req, on_progress, nullptr, progress_interval);
  }
  void ActionAnswered(const v1::ActionReply& reply);
  // After a phase's report has been sent (untimed): WorkloadPhases::
  // AfterReport (the workload's GiveBack: the checkpoint's heap trim, a
  // data loader's workers' own backends), then the buffers the run's
  // object-store backends kept for reuse across the phase's files.
  void AfterReport() {
    workloads_.AfterReport();
    agent_.storage().TrimBuffers();
  }
  // Consumes the request (its .metadata moves, uncopied).
  v1::CommitReply Commit(v1::CommitRequest req);
  v1::PutResultReply PutResult(const v1::PutResultRequest& req);
  v1::ClaimReply Claim(const v1::ClaimRequest& req);
  v1::CleanupReply Cleanup(const v1::CleanupRequest& req);
  // The same as the domain types (common/storage_commands.h): the ones
  // each message is converted to and from.
  absl::Status Commit(const CommitJob& job);
  absl::StatusOr<PutResultOutcome> PutResult(const PutResultJob& job);
  absl::StatusOr<ClaimOutcome> Claim(const ClaimJob& job);
  absl::StatusOr<CleanupOutcome> Cleanup(const CleanupJob& job);
  v1::AbortReply Abort(const v1::AbortRequest& req);
  v1::PingReply Ping(const v1::PingRequest& req);

 private:
  static v1::PrepareReply PrepareReplyOf(
      const absl::StatusOr<PrepareOutcome>& out);
  NodeAgent agent_;
  WorkloadPhases workloads_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_NODE_SERVICE_H_
