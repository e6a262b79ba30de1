// A NodeClient for a node connected over gRPC: each call is a message down
// the node's Session stream, answered by a message with the same call_id.
// The node's liveness is the time since it last sent anything (heartbeats
// arrive every heartbeat interval): a call fails with the node's index and
// host named when the node disconnects or is silent for node_timeout.
// Thread-safe: calls may come from any coordinator thread; OnMessage and
// OnDisconnect come from the stream's reader thread.
#ifndef CKPTBENCH_COORDINATOR_REMOTE_NODE_H_
#define CKPTBENCH_COORDINATOR_REMOTE_NODE_H_

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/sync_stream.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "common/clock.h"
#include "coordinator/node_client.h"

namespace ckpt {

using SessionStream =
    grpc::ServerReaderWriter<v1::CoordinatorMessage, v1::NodeMessage>;

class RemoteNode : public NodeClient {
 public:
  RemoteNode(int index, std::string host, SessionStream* stream,
             double node_timeout_seconds);

  int index() const override { return index_; }
  std::string host() const override { return host_; }
  int64_t clock_offset_ns() const override { return offset_ns_; }
  double rtt_seconds() const override { return rtt_seconds_; }
  void SetClock(int64_t offset_ns, double rtt_seconds) {
    offset_ns_ = offset_ns;
    rtt_seconds_ = rtt_seconds;
  }

  absl::StatusOr<v1::InspectReply> Inspect(
      const v1::InspectRequest& r) override;
  absl::StatusOr<v1::PrepareReply> Prepare(
      const v1::PrepareRequest& r) override;
  absl::StatusOr<v1::PhaseReport> StartPhase(
      const v1::StartPhaseRequest& r,
      const ProgressCallback& progress) override;
  absl::StatusOr<v1::CommitReply> Commit(const v1::CommitRequest& r) override;
  absl::StatusOr<v1::ClaimReply> Claim(const v1::ClaimRequest& r) override;
  absl::StatusOr<v1::CleanupReply> Cleanup(
      const v1::CleanupRequest& r) override;
  absl::StatusOr<v1::PutResultReply> PutResult(
      const v1::PutResultRequest& r) override;
  absl::StatusOr<v1::AbortReply> Abort(const v1::AbortRequest& r) override;
  absl::StatusOr<v1::PingReply> Ping(const v1::PingRequest& r) override;

  // Tells the node the run is over (no reply expected).
  void Shutdown(bool ok, const std::string& reason);

  // From the reader thread.
  void OnMessage(v1::NodeMessage&& msg);
  void OnDisconnect(const std::string& why);
  bool connected() const;

 private:
  struct Pending {
    std::optional<v1::NodeMessage> reply;
    ProgressCallback progress;
  };

  // Writes one message; false if the stream is gone.
  bool Write(const v1::CoordinatorMessage& msg);
  // Sends `msg` (call_id assigned) and waits for the reply message.
  absl::StatusOr<v1::NodeMessage> Call(
      v1::CoordinatorMessage msg, const ProgressCallback& progress = nullptr);

  const int index_;
  const std::string host_;
  SessionStream* stream_;
  const double node_timeout_;
  std::atomic<int64_t> offset_ns_{0};
  std::atomic<double> rtt_seconds_{0};

  // Serializes writes; stream_ becomes null (under write_mu_) when the
  // stream's handler ends, so no write can touch a finished stream.
  std::mutex write_mu_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t next_call_ = 1;
  std::map<uint64_t, Pending> pending_;
  SteadyClock::time_point last_heard_;
  bool disconnected_ = false;
  std::string disconnect_reason_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_REMOTE_NODE_H_
