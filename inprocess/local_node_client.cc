#include "inprocess/local_node_client.h"

namespace ckpt {

LocalNodeClient::LocalNodeClient(int index, std::string host,
                                 double progress_interval,
                                 std::shared_ptr<MemoryStore> memory,
                                 NodeWorkloads workloads)
    : index_(index),
      host_(std::move(host)),
      progress_interval_(progress_interval),
      service_(std::move(memory), std::move(workloads)) {}

absl::StatusOr<v1::InspectReply> LocalNodeClient::SendInspect(
    const v1::InspectRequest& r) {
  return service_.Inspect(r);
}
absl::StatusOr<v1::PrepareReply> LocalNodeClient::SendPrepare(
    v1::PrepareRequest r) {
  service_.AfterReport();  // the last phase's, untimed here
  return service_.Prepare(std::move(r));
}
absl::StatusOr<v1::PhaseReport> LocalNodeClient::SendStartPhase(
    const v1::StartPhaseRequest& r, const WireListener& listener) {
  std::function<void(const v1::ActionRequest&)> ask;
  if (listener.action) {
    ask = [this, action = listener.action](const v1::ActionRequest& a) {
      action(a,
             [this](v1::ActionReply reply) { service_.ActionAnswered(reply); });
    };
  }
  return service_.StartPhase(r, listener.progress, ask, progress_interval_);
}
absl::StatusOr<v1::CommitReply> LocalNodeClient::SendCommit(
    v1::CommitRequest r) {
  return service_.Commit(std::move(r));
}
absl::StatusOr<v1::ClaimReply> LocalNodeClient::SendClaim(
    const v1::ClaimRequest& r) {
  return service_.Claim(r);
}

absl::StatusOr<v1::CleanupReply> LocalNodeClient::SendCleanup(
    const v1::CleanupRequest& r) {
  return service_.Cleanup(r);
}
absl::StatusOr<v1::PutResultReply> LocalNodeClient::SendPutResult(
    const v1::PutResultRequest& r) {
  return service_.PutResult(r);
}
absl::StatusOr<v1::AbortReply> LocalNodeClient::SendAbort(
    const v1::AbortRequest& r) {
  return service_.Abort(r);
}
absl::StatusOr<v1::PingReply> LocalNodeClient::SendPing(
    const v1::PingRequest& r) {
  return service_.Ping(r);
}

}  // namespace ckpt
