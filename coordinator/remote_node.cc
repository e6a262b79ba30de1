#include "coordinator/remote_node.h"

#include <condition_variable>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/reply_check.h"

namespace ckpt {

RemoteNode::RemoteNode(int index, std::string host, SessionWriter* writer,
                       double node_timeout_seconds)
    : index_(index),
      host_(std::move(host)),
      node_timeout_(node_timeout_seconds),
      writer_(writer),
      last_heard_(SteadyClock::now()) {}

bool RemoteNode::connected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !disconnected_;
}

bool RemoteNode::lost() const {
  std::lock_guard<std::mutex> lock(mu_);
  return disconnected_ || silent_;
}

void RemoteNode::OnMessage(v1::NodeMessage&& msg) {
  decltype(WireListener::progress) progress;
  decltype(WireListener::action) action;
  ReplyDone done;
  const bool ask = msg.has_action();
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_heard_ = SteadyClock::now();
    if (msg.has_heartbeat()) return;
    auto it = pending_.find(msg.call_id());
    if (it == pending_.end()) return;
    if (msg.has_progress()) {
      progress = it->second.listener.progress;
    } else if (ask) {
      action = it->second.listener.action;
    } else {
      done = std::move(it->second.done);
      pending_.erase(it);
    }
  }
  if (progress) progress(msg.progress());
  if (ask) {
    // The answer goes back on the phase's call; a call that takes no asks
    // refuses them.
    auto reply = [this, id = msg.call_id()](v1::ActionReply r) {
      v1::CoordinatorMessage m;
      m.set_call_id(id);
      *m.mutable_action_reply() = std::move(r);
      (void)Write(std::move(m));
    };
    if (action) {
      action(msg.action(), std::move(reply));
    } else {
      reply(ToWire(
          ActionAnswer{msg.action().round_id(),
                       msg.action().action_id(),
                       absl::FailedPreconditionError(
                           "the coordinator takes no action during this call"),
                       {}}));
    }
  }
  if (done) done(std::move(msg));
}

bool RemoteNode::Write(v1::CoordinatorMessage msg) {
  std::lock_guard<std::mutex> lock(write_mu_);
  return writer_ != nullptr && writer_->Send(std::move(msg));
}

void RemoteNode::FailAll(const absl::Status& error) {
  std::map<uint64_t, Pending> failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    failed.swap(pending_);
  }
  for (auto& [id, p] : failed) p.done(error);
}

void RemoteNode::OnDisconnect(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(write_mu_);
    writer_ = nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    disconnected_ = true;
    disconnect_reason_ = why;
  }
  FailAll(absl::UnavailableError(absl::StrCat(Who(), " disconnected: ", why)));
}

void RemoteNode::CheckSilence() {
  double silent;
  std::map<uint64_t, Pending> failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_.empty()) return;
    silent =
        std::chrono::duration<double>(SteadyClock::now() - last_heard_).count();
    if (silent <= node_timeout_) return;
    // Judged and emptied under one lock: a reply or a new call in between
    // must not be failed for a silence that just ended.
    failed.swap(pending_);
    silent_ = true;
  }
  const absl::Status error = absl::DeadlineExceededError(absl::StrFormat(
      "%s sent nothing for %.1f s (control.node_timeout = %g s)", Who(), silent,
      node_timeout_));
  for (auto& [id, p] : failed) p.done(error);
}

void RemoteNode::CallAsync(v1::CoordinatorMessage msg, WireListener listener,
                           ReplyDone done) {
  uint64_t id;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (disconnected_) {
      std::string why = disconnect_reason_;
      lock.unlock();
      done(absl::UnavailableError(absl::StrCat(Who(), " disconnected: ", why)));
      return;
    }
    id = next_call_++;
    pending_[id] = Pending{std::move(listener), std::move(done)};
  }
  msg.set_call_id(id);
  if (Write(std::move(msg))) return;
  ReplyDone failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return;  // already failed by a disconnect
    failed = std::move(it->second.done);
    pending_.erase(it);
  }
  failed(absl::UnavailableError(
      absl::StrCat(Who(), " disconnected (write failed)")));
}

absl::StatusOr<v1::NodeMessage> RemoteNode::Call(v1::CoordinatorMessage msg,
                                                 const WireListener& listener) {
  struct Waiter {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<absl::StatusOr<v1::NodeMessage>> reply;
  };
  auto w = std::make_shared<Waiter>();
  CallAsync(std::move(msg), listener,
            [w](absl::StatusOr<v1::NodeMessage> reply) {
              std::lock_guard<std::mutex> lock(w->mu);
              w->reply = std::move(reply);
              w->cv.notify_one();
            });
  std::unique_lock<std::mutex> lock(w->mu);
  w->cv.wait(lock, [&w] { return w->reply.has_value(); });
  return std::move(*w->reply);
}

namespace {

// The reply inside a call's reply message (`get` names its field, `want`
// its body), or the call's error; a reply of another type fails the call,
// naming the node `who` (the field's accessor would hand back an empty
// reply: a save with no ranks once passed as "ok").
template <typename Reply>
absl::StatusOr<Reply> ReplyOf(absl::StatusOr<v1::NodeMessage> rep,
                              v1::NodeMessage::BodyCase want,
                              Reply* (v1::NodeMessage::*get)(),
                              const std::string& who) {
  if (!rep.ok()) return rep.status();
  if (auto s = CheckReplyBody(*rep, want, who); !s.ok()) return s;
  return std::move(*((*rep).*get)());
}

}  // namespace

absl::StatusOr<v1::InspectReply> RemoteNode::SendInspect(
    const v1::InspectRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_inspect() = r;
  return ReplyOf(Call(std::move(m)), v1::NodeMessage::kInspect,
                 &v1::NodeMessage::mutable_inspect, Who());
}

absl::StatusOr<v1::PrepareReply> RemoteNode::SendPrepare(v1::PrepareRequest r) {
  v1::CoordinatorMessage m;
  *m.mutable_prepare() = std::move(r);
  return ReplyOf(Call(std::move(m)), v1::NodeMessage::kPrepare,
                 &v1::NodeMessage::mutable_prepare, Who());
}

void RemoteNode::SendPrepareAsync(v1::PrepareRequest r,
                                  Done<v1::PrepareReply> done) {
  v1::CoordinatorMessage m;
  *m.mutable_prepare() = std::move(r);
  CallAsync(std::move(m), {},
            [done = std::move(done),
             who = Who()](absl::StatusOr<v1::NodeMessage> rep) {
              done(ReplyOf(std::move(rep), v1::NodeMessage::kPrepare,
                           &v1::NodeMessage::mutable_prepare, who));
            });
}

absl::StatusOr<v1::PhaseReport> RemoteNode::SendStartPhase(
    const v1::StartPhaseRequest& r, const WireListener& listener) {
  v1::CoordinatorMessage m;
  *m.mutable_start_phase() = r;
  return ReplyOf(Call(std::move(m), listener), v1::NodeMessage::kPhaseReport,
                 &v1::NodeMessage::mutable_phase_report, Who());
}

void RemoteNode::SendStartPhaseAsync(const v1::StartPhaseRequest& r,
                                     WireListener listener,
                                     Done<v1::PhaseReport> done) {
  v1::CoordinatorMessage m;
  *m.mutable_start_phase() = r;
  CallAsync(std::move(m), std::move(listener),
            [done = std::move(done),
             who = Who()](absl::StatusOr<v1::NodeMessage> rep) {
              done(ReplyOf(std::move(rep), v1::NodeMessage::kPhaseReport,
                           &v1::NodeMessage::mutable_phase_report, who));
            });
}

absl::StatusOr<v1::CommitReply> RemoteNode::SendCommit(v1::CommitRequest r) {
  v1::CoordinatorMessage m;
  *m.mutable_commit() = std::move(r);
  return ReplyOf(Call(std::move(m)), v1::NodeMessage::kCommit,
                 &v1::NodeMessage::mutable_commit, Who());
}

void RemoteNode::SendCommitAsync(v1::CommitRequest r,
                                 Done<v1::CommitReply> done) {
  v1::CoordinatorMessage m;
  *m.mutable_commit() = std::move(r);
  CallAsync(std::move(m), {},
            [done = std::move(done),
             who = Who()](absl::StatusOr<v1::NodeMessage> rep) {
              done(ReplyOf(std::move(rep), v1::NodeMessage::kCommit,
                           &v1::NodeMessage::mutable_commit, who));
            });
}

absl::StatusOr<v1::ClaimReply> RemoteNode::SendClaim(
    const v1::ClaimRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_claim() = r;
  return ReplyOf(Call(std::move(m)), v1::NodeMessage::kClaim,
                 &v1::NodeMessage::mutable_claim, Who());
}

absl::StatusOr<v1::CleanupReply> RemoteNode::SendCleanup(
    const v1::CleanupRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_cleanup() = r;
  return ReplyOf(Call(std::move(m)), v1::NodeMessage::kCleanup,
                 &v1::NodeMessage::mutable_cleanup, Who());
}

absl::StatusOr<v1::PutResultReply> RemoteNode::SendPutResult(
    const v1::PutResultRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_put_result() = r;
  return ReplyOf(Call(std::move(m)), v1::NodeMessage::kPutResult,
                 &v1::NodeMessage::mutable_put_result, Who());
}

absl::StatusOr<v1::AbortReply> RemoteNode::SendAbort(
    const v1::AbortRequest& r) {
  // Fire and forget: an abort must not wait on the node it is aborting.
  v1::CoordinatorMessage m;
  *m.mutable_abort() = r;
  if (!Write(std::move(m))) {
    return absl::UnavailableError(absl::StrCat(Who(), " disconnected"));
  }
  return v1::AbortReply();
}

absl::StatusOr<v1::PingReply> RemoteNode::SendPing(const v1::PingRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_ping() = r;
  return ReplyOf(Call(std::move(m)), v1::NodeMessage::kPing,
                 &v1::NodeMessage::mutable_ping, Who());
}

void RemoteNode::Shutdown(ExitCode end, const std::string& reason) {
  v1::CoordinatorMessage m;
  m.mutable_shutdown()->set_ok(end == ExitCode::kOk);
  m.mutable_shutdown()->set_reason(reason);
  m.mutable_shutdown()->set_exit_code(ToInt(end));
  Write(std::move(m));
}

}  // namespace ckpt
