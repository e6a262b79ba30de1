// A NodeClient for a node connected over gRPC: each call is a message down
// the node's Session stream, answered by a message with the same call_id.
// Calls are asynchronous underneath: a call registers what to do with its
// reply and returns; the reply (or the stream's end, or the node's silence)
// completes it on the thread that saw it. The blocking calls wait on that.
// The node's liveness is the time since it last sent anything (heartbeats
// arrive every heartbeat interval): CheckSilence, called periodically by the
// session server, fails a silent node's calls with its index and host named.
// Thread-safe.
#ifndef CKPTBENCH_COORDINATOR_REMOTE_NODE_H_
#define CKPTBENCH_COORDINATOR_REMOTE_NODE_H_

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "common/exit_code.h"
#include "coordinator/round/node_client.h"

namespace ckpt {

// Where a RemoteNode's messages go: its Session stream. Send queues the
// message (moved: a commit's .metadata can be megabytes) and returns at
// once; false once the stream has ended.
class SessionWriter {
 public:
  virtual ~SessionWriter() = default;
  virtual bool Send(v1::CoordinatorMessage msg) = 0;
};

class RemoteNode : public NodeClient {
 public:
  RemoteNode(int index, std::string host, SessionWriter* writer,
             double node_timeout_seconds);

  int index() const override { return index_; }
  std::string host() const override { return host_; }
  int64_t clock_offset_ns() const override { return offset_ns_; }
  double rtt_seconds() const override { return rtt_seconds_; }
  bool remote() const override { return true; }
  void SetClock(int64_t offset_ns, double rtt_seconds) override {
    offset_ns_ = offset_ns;
    rtt_seconds_ = rtt_seconds;
  }

  bool async() const override { return true; }

  // Tells the node the run is over and how it ended, the exit status it
  // takes too (no reply expected).
  void Shutdown(ExitCode end, const std::string& reason);

  // From the stream.
  void OnMessage(v1::NodeMessage&& msg);
  void OnDisconnect(const std::string& why);
  bool connected() const;
  // Whether the node was lost: it disconnected, or went silent past
  // node_timeout.
  bool lost() const override;
  // Fails every call in flight if the node has sent nothing for longer
  // than node_timeout.
  void CheckSilence();

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

  void SendPrepareAsync(v1::PrepareRequest r,
                        Done<v1::PrepareReply> done) override;
  void SendStartPhaseAsync(const v1::StartPhaseRequest& r,
                           WireListener listener,
                           Done<v1::PhaseReport> done) override;
  void SendCommitAsync(v1::CommitRequest r,
                       Done<v1::CommitReply> done) override;

 private:
  using ReplyDone = std::function<void(absl::StatusOr<v1::NodeMessage>)>;
  struct Pending {
    WireListener listener;
    ReplyDone done;
  };

  // Queues one message; false if the stream is gone.
  bool Write(v1::CoordinatorMessage msg);
  // Sends `msg` (call_id assigned); `done` gets the reply message.
  void CallAsync(v1::CoordinatorMessage msg, WireListener listener,
                 ReplyDone done);
  // The same, waiting for the reply.
  absl::StatusOr<v1::NodeMessage> Call(v1::CoordinatorMessage msg,
                                       const WireListener& listener = {});
  // Fails every call in flight with `error` (mu_ not held).
  void FailAll(const absl::Status& error);

  const int index_;
  const std::string host_;
  const double node_timeout_;
  std::atomic<int64_t> offset_ns_{0};
  std::atomic<double> rtt_seconds_{0};

  // Guards writer_, which becomes null when the stream ends, so no write
  // can touch a finished stream.
  std::mutex write_mu_;
  SessionWriter* writer_;
  mutable std::mutex mu_;
  uint64_t next_call_ = 1;
  std::map<uint64_t, Pending> pending_;
  SteadyClock::time_point last_heard_;
  bool disconnected_ = false;
  bool silent_ = false;  // CheckSilence failed its calls
  std::string disconnect_reason_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_REMOTE_NODE_H_
