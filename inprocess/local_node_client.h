// A NodeClient whose node agent lives in this process (ckptbench run).
// Messages go through NodeService exactly as they would over gRPC.
#ifndef CKPTBENCH_INPROCESS_LOCAL_NODE_CLIENT_H_
#define CKPTBENCH_INPROCESS_LOCAL_NODE_CLIENT_H_

#include <memory>

#include "coordinator/round/node_client.h"
#include "node/node_service.h"

namespace ckpt {

class LocalNodeClient : public NodeClient {
 public:
  // mem:// locations are files in `memory` (the nodes of a test share
  // one), or in a store of the node's own when null; `workloads` are the
  // ones the node runs besides the checkpoint.
  LocalNodeClient(int index, std::string host, double progress_interval,
                  std::shared_ptr<MemoryStore> memory = nullptr,
                  NodeWorkloads workloads = {});

  // A sweep's next run may ask for another interval (run.progress_interval).
  void set_progress_interval(double seconds) { progress_interval_ = seconds; }

  int index() const override { return index_; }
  std::string host() const override { return host_; }

 protected:
  absl::StatusOr<v1::InspectReply> SendInspect(
      const v1::InspectRequest& r) override;
  absl::StatusOr<v1::PrepareReply> SendPrepare(v1::PrepareRequest r) override;
  absl::StatusOr<v1::PhaseReport> SendStartPhase(
      const v1::StartPhaseRequest& r, const WireListener& listener) override;
  absl::StatusOr<v1::CommitReply> SendCommit(v1::CommitRequest r) override;
  absl::StatusOr<v1::ClaimReply> SendClaim(const v1::ClaimRequest& r) override;
  absl::StatusOr<v1::CleanupReply> SendCleanup(
      const v1::CleanupRequest& r) override;
  absl::StatusOr<v1::PutResultReply> SendPutResult(
      const v1::PutResultRequest& r) override;
  absl::StatusOr<v1::AbortReply> SendAbort(const v1::AbortRequest& r) override;
  absl::StatusOr<v1::PingReply> SendPing(const v1::PingRequest& r) override;

 private:
  int index_;
  std::string host_;
  double progress_interval_;
  NodeService service_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_INPROCESS_LOCAL_NODE_CLIENT_H_
