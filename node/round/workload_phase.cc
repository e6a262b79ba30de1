#include "node/round/workload_phase.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/error_kind.h"
#include "common/text.h"
#include "node/round/phase_start.h"
#include "wire/error_kind.h"
#include "wire/phase_report_codec.h"
#include "wire/round_codec.h"

namespace ckpt {

absl::StatusOr<PrepareOutcome> WorkloadPhases::Prepare(const PhaseJob& job,
                                                       StorageSet& storage) {
  auto it = workloads_.find(job.workload);
  if (it == workloads_.end()) {
    std::string known = "checkpoint";
    for (const auto& [name, make] : workloads_)
      absl::StrAppend(&known, ", ", name);
    return absl::FailedPreconditionError(absl::StrCat(
        "workload '", EscapeForTerminal(job.workload.substr(0, 100)),
        "' is not one this node runs (it runs: ", known, ")"));
  }
  std::unique_ptr<NodeWorkload> phase = it->second();
  absl::Status s = phase->Prepare(job.workload_job, storage);
  std::lock_guard<std::mutex> lock(mu_);
  aborted_ = false;  // an abort of an earlier round is over
  prepared_.reset();
  if (!s.ok()) return s;
  prepared_ = std::move(phase);
  prepared_round_ = {job.run_id, job.round_id};
  return PrepareOutcome{};  // opened no storage of the checkpoint's kind
}

bool WorkloadPhases::Owns(const std::string& run_id, uint64_t round_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto key = std::make_pair(run_id, round_id);
  return (prepared_ && prepared_round_ == key) || started_.count(key) > 0;
}

v1::PhaseReport WorkloadPhases::Run(
    const v1::StartPhaseRequest& req,
    const std::function<void(const v1::Progress&)>& progress,
    const SendAsk& send_ask, double progress_interval) {
  const auto key = std::make_pair(req.run_id(), req.round_id());
  std::promise<v1::PhaseReport> promise;
  std::unique_ptr<NodeWorkload> phase;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = started_.find(key);
    if (it != started_.end()) {
      auto first = it->second;  // a retried start: the same report
      lock.unlock();
      return first.get();
    }
    started_[key] = promise.get_future().share();
    if (prepared_ && prepared_round_ == key) phase = std::move(prepared_);
  }
  PhaseOutcome out;
  if (phase == nullptr) {
    out.status = absl::FailedPreconditionError(absl::StrCat(
        "round ", req.round_id(), " was started without being prepared"));
  } else {
    out = Execute(*phase, req, progress, send_ask, progress_interval);
  }
  out.round_id = req.round_id();
  v1::PhaseReport rep = ToWire(out);
  promise.set_value(rep);
  return rep;
}

PhaseOutcome WorkloadPhases::Execute(
    NodeWorkload& phase, const v1::StartPhaseRequest& req,
    const std::function<void(const v1::Progress&)>& progress,
    const SendAsk& send_ask, double progress_interval) {
  PhaseOutcome rep;
  std::atomic<uint64_t> done{0}, total{0};
  NodePhaseContext ctx;
  ctx.round_id = req.round_id();
  ctx.progress = [&](uint64_t d, uint64_t t) {
    done = d;
    total = t;
  };
  ctx.ask = [&](const std::string& payload) {
    return Ask(send_ask, req.round_id(), payload);
  };
  ctx.aborted = [this] {
    std::lock_guard<std::mutex> lock(mu_);
    return aborted_;
  };
  rep.start_lag_seconds = SleepUntilStart(req.start_at_unix_ns());
  // Progress every interval while the phase runs, from a thread of its own.
  std::mutex tick_mu;
  std::condition_variable tick_cv;
  bool ended = false;
  std::thread ticker;
  if (progress) {
    ticker = std::thread([&] {
      std::unique_lock<std::mutex> lock(tick_mu);
      const auto interval = std::chrono::duration<double>(progress_interval);
      while (!tick_cv.wait_for(lock, interval, [&] { return ended; })) {
        progress(ToWire(PhaseProgress{req.round_id(), {{0, done, total}}}));
      }
    });
  }
  absl::StatusOr<std::string> out = phase.Run(ctx);
  {
    std::lock_guard<std::mutex> lock(tick_mu);
    ended = true;
  }
  tick_cv.notify_all();
  if (ticker.joinable()) ticker.join();
  if (out.ok()) {
    rep.workload_report = std::move(*out);
  } else {
    rep.status = out.status();
  }
  return rep;
}

absl::StatusOr<std::string> WorkloadPhases::Ask(const SendAsk& send_ask,
                                                uint64_t round_id,
                                                const std::string& payload) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_) return absl::AbortedError("the round was aborted");
    id = next_action_++;
    answers_[id];
  }
  send_ask(ToWire(ActionAsk{round_id, id, payload}));
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return aborted_ || answers_[id].has_value(); });
  std::optional<v1::ActionReply> answer = std::move(answers_[id]);
  answers_.erase(id);
  if (!answer.has_value()) {
    return absl::AbortedError(
        "the round was aborted while waiting for the "
        "coordinator's answer");
  }
  ActionAnswer a = FromWire(*answer);
  if (!a.status.ok()) {
    return WithPrefix(a.status, "the coordinator refused: ");
  }
  return std::move(a.payload);
}

void WorkloadPhases::Answer(const v1::ActionReply& reply) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = answers_.find(reply.action_id());
    if (it == answers_.end() || it->second.has_value()) return;
    it->second = reply;
  }
  cv_.notify_all();
}

void WorkloadPhases::Abort() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    aborted_ = true;
  }
  cv_.notify_all();
}

}  // namespace ckpt
