// How the coordinator talks to one node agent. `ckptbench run` uses the
// in-process LocalNodeClient; the multinode coordinator uses a gRPC client
// with the same interface and the same ckptbench.v1 messages.
// A returned error Status means the node could not be reached or answered
// out of contract; a node-side failure comes back in the reply's `error`.
// Implementations are safe to call from one coordinator thread per node.
// RemoteNode is asynchronous: one thread can start a call on every node.
#ifndef CKPTBENCH_COORDINATOR_ROUND_NODE_CLIENT_H_
#define CKPTBENCH_COORDINATOR_ROUND_NODE_CLIENT_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

using ProgressCallback = std::function<void(const v1::Progress&)>;
// A node's workload asks, mid-phase, for an action; `reply` answers it
// once, from any thread. Runs on the thread that got the ask: must not
// block (round_workload.h).
using ActionCallback = std::function<void(
    const v1::ActionRequest&, std::function<void(v1::ActionReply)> reply)>;

// What a running phase sends the coordinator besides its report.
struct PhaseListener {
  ProgressCallback progress;
  ActionCallback action;  // null: asks are refused
};

class NodeClient {
 public:
  virtual ~NodeClient() = default;
  virtual int index() const = 0;
  virtual std::string host() const = 0;
  // "node 3 (host-a)": how messages name the node.
  std::string Who() const {
    return absl::StrCat("node ", index(), " (", host(), ")");
  }
  // The node's clock minus the coordinator's (unix ns), and the round trip
  // of the best estimate; zero for an in-process node.
  virtual int64_t clock_offset_ns() const { return 0; }
  virtual double rtt_seconds() const { return 0; }
  // A new estimate (EstimateClock); an in-process node has no other clock.
  virtual bool remote() const { return false; }
  virtual void SetClock(int64_t /*offset_ns*/, double /*rtt_seconds*/) {}

  virtual absl::StatusOr<v1::InspectReply> Inspect(
      const v1::InspectRequest& r) = 0;
  virtual absl::StatusOr<v1::PrepareReply> Prepare(
      const v1::PrepareRequest& r) = 0;
  // Blocks until the node reports the phase; progress and the workload's
  // asks arrive meanwhile.
  virtual absl::StatusOr<v1::PhaseReport> StartPhase(
      const v1::StartPhaseRequest& r, const PhaseListener& listener) = 0;
  virtual absl::StatusOr<v1::CommitReply> Commit(
      const v1::CommitRequest& r) = 0;
  virtual absl::StatusOr<v1::ClaimReply> Claim(const v1::ClaimRequest& r) = 0;
  virtual absl::StatusOr<v1::CleanupReply> Cleanup(
      const v1::CleanupRequest& r) = 0;
  virtual absl::StatusOr<v1::PutResultReply> PutResult(
      const v1::PutResultRequest& r) = 0;
  virtual absl::StatusOr<v1::AbortReply> Abort(const v1::AbortRequest& r) = 0;
  virtual absl::StatusOr<v1::PingReply> Ping(const v1::PingRequest& r) = 0;

  // The calls of a timed round, asynchronously: each sends the call and
  // returns; `done` runs once, when the reply arrives or the call fails, on
  // whichever thread saw that. A client whose async() is false runs the
  // blocking call inline (these defaults), so callers fan such clients out
  // on threads of their own.
  template <typename Reply>
  using Done = std::function<void(absl::StatusOr<Reply>)>;
  virtual bool async() const { return false; }
  virtual void PrepareAsync(const v1::PrepareRequest& r,
                            Done<v1::PrepareReply> done) {
    done(Prepare(r));
  }
  virtual void StartPhaseAsync(const v1::StartPhaseRequest& r,
                               PhaseListener listener,
                               Done<v1::PhaseReport> done) {
    done(StartPhase(r, listener));
  }
  virtual void CommitAsync(const v1::CommitRequest& r,
                           Done<v1::CommitReply> done) {
    done(Commit(r));
  }
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_ROUND_NODE_CLIENT_H_
