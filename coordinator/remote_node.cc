#include "coordinator/remote_node.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ckpt {

RemoteNode::RemoteNode(int index, std::string host, SessionStream* stream,
                       double node_timeout_seconds)
    : index_(index),
      host_(std::move(host)),
      stream_(stream),
      node_timeout_(node_timeout_seconds),
      last_heard_(SteadyClock::now()) {}

bool RemoteNode::connected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !disconnected_;
}

void RemoteNode::OnMessage(v1::NodeMessage&& msg) {
  ProgressCallback progress;
  v1::Progress p;
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_heard_ = SteadyClock::now();
    auto it = pending_.find(msg.call_id());
    if (it == pending_.end() || msg.has_heartbeat()) return;
    if (msg.has_progress()) {
      progress = it->second.progress;
      p = std::move(*msg.mutable_progress());
    } else {
      it->second.reply = std::move(msg);
      cv_.notify_all();
    }
  }
  if (progress) progress(p);
}

bool RemoteNode::Write(const v1::CoordinatorMessage& msg) {
  std::lock_guard<std::mutex> lock(write_mu_);
  return stream_ != nullptr && stream_->Write(msg);
}

void RemoteNode::OnDisconnect(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(write_mu_);
    stream_ = nullptr;
  }
  std::lock_guard<std::mutex> lock(mu_);
  disconnected_ = true;
  disconnect_reason_ = why;
  cv_.notify_all();
}

namespace {

// The reply inside a call's reply message (`get` names its field), or the
// call's error.
template <typename Reply>
absl::StatusOr<Reply> ReplyOf(absl::StatusOr<v1::NodeMessage> rep,
                              Reply* (v1::NodeMessage::*get)()) {
  if (!rep.ok()) return rep.status();
  return std::move(*((*rep).*get)());
}

}  // namespace

absl::StatusOr<v1::NodeMessage> RemoteNode::Call(
    v1::CoordinatorMessage msg, const ProgressCallback& progress) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (disconnected_) {
      return absl::UnavailableError(
          absl::StrCat(Who(), " disconnected: ", disconnect_reason_));
    }
    id = next_call_++;
    pending_[id].progress = progress;
  }
  msg.set_call_id(id);
  bool wrote = Write(msg);
  std::unique_lock<std::mutex> lock(mu_);
  if (!wrote) {
    pending_.erase(id);
    return absl::UnavailableError(
        absl::StrCat(Who(), " disconnected (write failed)"));
  }
  const auto timeout = std::chrono::duration<double>(node_timeout_);
  while (true) {
    Pending& p = pending_[id];
    if (p.reply) {
      v1::NodeMessage reply = std::move(*p.reply);
      pending_.erase(id);
      return reply;
    }
    if (disconnected_) {
      pending_.erase(id);
      return absl::UnavailableError(
          absl::StrCat(Who(), " disconnected: ", disconnect_reason_));
    }
    double silent =
        std::chrono::duration<double>(SteadyClock::now() - last_heard_).count();
    if (silent > node_timeout_) {
      pending_.erase(id);
      return absl::DeadlineExceededError(absl::StrFormat(
          "%s sent nothing for %.1f s (control.node_timeout = %g s)", Who(),
          silent, node_timeout_));
    }
    cv_.wait_for(lock, std::min<std::chrono::duration<double>>(
                           timeout, std::chrono::duration<double>(0.2)));
  }
}

absl::StatusOr<v1::InspectReply> RemoteNode::Inspect(
    const v1::InspectRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_inspect() = r;
  return ReplyOf(Call(std::move(m)), &v1::NodeMessage::mutable_inspect);
}

absl::StatusOr<v1::PrepareReply> RemoteNode::Prepare(
    const v1::PrepareRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_prepare() = r;
  return ReplyOf(Call(std::move(m)), &v1::NodeMessage::mutable_prepare);
}

absl::StatusOr<v1::PhaseReport> RemoteNode::StartPhase(
    const v1::StartPhaseRequest& r, const ProgressCallback& progress) {
  v1::CoordinatorMessage m;
  *m.mutable_start_phase() = r;
  return ReplyOf(Call(std::move(m), progress),
                 &v1::NodeMessage::mutable_phase_report);
}

absl::StatusOr<v1::CommitReply> RemoteNode::Commit(const v1::CommitRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_commit() = r;
  return ReplyOf(Call(std::move(m)), &v1::NodeMessage::mutable_commit);
}

absl::StatusOr<v1::ClaimReply> RemoteNode::Claim(const v1::ClaimRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_claim() = r;
  return ReplyOf(Call(std::move(m)), &v1::NodeMessage::mutable_claim);
}

absl::StatusOr<v1::CleanupReply> RemoteNode::Cleanup(
    const v1::CleanupRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_cleanup() = r;
  return ReplyOf(Call(std::move(m)), &v1::NodeMessage::mutable_cleanup);
}

absl::StatusOr<v1::PutResultReply> RemoteNode::PutResult(
    const v1::PutResultRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_put_result() = r;
  return ReplyOf(Call(std::move(m)), &v1::NodeMessage::mutable_put_result);
}

absl::StatusOr<v1::AbortReply> RemoteNode::Abort(const v1::AbortRequest& r) {
  // Fire and forget: an abort must not wait on the node it is aborting.
  v1::CoordinatorMessage m;
  *m.mutable_abort() = r;
  if (!Write(m)) {
    return absl::UnavailableError(absl::StrCat(Who(), " disconnected"));
  }
  return v1::AbortReply();
}

absl::StatusOr<v1::PingReply> RemoteNode::Ping(const v1::PingRequest& r) {
  v1::CoordinatorMessage m;
  *m.mutable_ping() = r;
  return ReplyOf(Call(std::move(m)), &v1::NodeMessage::mutable_ping);
}

void RemoteNode::Shutdown(bool ok, const std::string& reason) {
  v1::CoordinatorMessage m;
  m.mutable_shutdown()->set_ok(ok);
  m.mutable_shutdown()->set_reason(reason);
  Write(m);
}

}  // namespace ckpt
