#include "node/round/workload_phase.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "common/text.h"
#include "node/round/phase_start.h"

namespace ckpt {

absl::StatusOr<PrepareOutcome> WorkloadPhases::Prepare(PhaseJob job,
                                                       StorageSet& storage) {
  std::lock_guard<std::mutex> one(prepare_mu_);
  std::unique_ptr<NodeWorkload> before, last;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_) {
      // The running phase holds its buffers and storage: never a second
      // one beside it.
      return absl::FailedPreconditionError(
          absl::StrCat("round ", job.round_id, " cannot be prepared: round ",
                       running_->second, " is still running on this node"));
    }
    abort_ = false;  // an abort of an earlier round is over
    before = std::move(prepared_);
    last = std::move(finished_);
  }
  // What an earlier round held is given back before this one allocates:
  // one prepared but never started, or one whose report was sent with no
  // AfterReport since.
  if (before != nullptr) before->GiveBack();
  if (last != nullptr) last->GiveBack();
  before.reset();
  last.reset();
  auto it = workloads_.find(job.workload);
  if (it == workloads_.end()) {
    std::string known;
    for (const auto& [name, make] : workloads_) {
      absl::StrAppend(&known, known.empty() ? "" : ", ",
                      name.empty() ? unnamed_ : name);
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "workload '", EscapeForTerminal(job.workload.substr(0, 100)),
        "' is not one this node runs (it runs: ", known, ")"));
  }
  std::unique_ptr<NodeWorkload> phase = it->second();
  Round round{job.run_id, job.round_id};
  absl::StatusOr<PrepareOutcome> out =
      phase->Prepare(std::move(job), storage, abort_);
  if (!out.ok()) return out;
  std::lock_guard<std::mutex> lock(mu_);
  prepared_ = std::move(phase);
  prepared_round_ = std::move(round);
  return out;
}

PhaseOutcome WorkloadPhases::Run(const PhaseStart& start,
                                 const SendProgress& progress,
                                 const SendAsk& send_ask) {
  const Round key{start.run_id, start.round_id};
  std::promise<PhaseOutcome> promise;
  std::unique_ptr<NodeWorkload> phase;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = started_.find(key);
    if (it != started_.end()) {
      auto first = it->second;  // a retried start: the same outcome
      lock.unlock();
      return first.get();
    }
    started_[key] = promise.get_future().share();
    if (prepared_ && prepared_round_ == key) {
      phase = std::move(prepared_);
      running_ = key;
    }
  }
  PhaseOutcome out;
  if (phase == nullptr) {
    out.status = absl::FailedPreconditionError(absl::StrCat(
        "round ", start.round_id, " was started without being prepared"));
  } else {
    out = Execute(*phase, start, progress, send_ask);
    std::lock_guard<std::mutex> lock(mu_);
    running_.reset();
    finished_ = std::move(phase);
  }
  out.round_id = start.round_id;
  promise.set_value(out);
  return out;
}

PhaseOutcome WorkloadPhases::Execute(NodeWorkload& phase,
                                     const PhaseStart& start,
                                     const SendProgress& progress,
                                     const SendAsk& send_ask) {
  NodePhaseContext ctx;
  ctx.round_id = start.round_id;
  ctx.abort = &abort_;
  ctx.ask = [&](const std::string& payload) {
    return Ask(send_ask, start.round_id, payload);
  };
  // Progress every interval from the start on, sent by the phase's own
  // threads; none after the report. Made before the sleep: nothing is
  // allocated at the start instant.
  ProgressReporter reporter(
      progress ? std::function<void()>([&] {
        progress(PhaseProgress{start.round_id, phase.Progress()});
      })
               : nullptr,
      start.progress_interval_seconds);
  const double lag = SleepUntilStart(start.start_at_unix_ns);
  reporter.Start();
  ctx.progress = &reporter;
  PhaseOutcome out = phase.Run(ctx);
  reporter.Stop();
  out.start_lag_seconds = lag;
  return out;
}

absl::StatusOr<std::string> WorkloadPhases::Ask(const SendAsk& send_ask,
                                                uint64_t round_id,
                                                const std::string& payload) {
  if (!send_ask) {
    // A caller that takes no actions (a blocking in-process caller).
    return absl::FailedPreconditionError(
        "the coordinator refused: this node's caller takes no actions");
  }
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (abort_) return absl::AbortedError("the round was aborted");
    id = next_action_++;
    answers_[id];
  }
  send_ask(ActionAsk{round_id, id, payload});
  std::unique_lock<std::mutex> lock(mu_);
  // Polled too: the phase may set the abort flag itself, unlocked.
  while (!abort_ && !answers_[id].has_value()) {
    cv_.wait_for(lock, std::chrono::milliseconds(50));
  }
  std::optional<ActionAnswer> answer = std::move(answers_[id]);
  answers_.erase(id);
  if (!answer.has_value()) {
    return absl::AbortedError(
        "the round was aborted while waiting for the coordinator's answer");
  }
  if (!answer->status.ok()) {
    return WithPrefix(answer->status, "the coordinator refused: ");
  }
  return std::move(answer->payload);
}

void WorkloadPhases::Answer(ActionAnswer answer) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = answers_.find(answer.action_id);
    if (it == answers_.end() || it->second.has_value()) return;
    it->second = std::move(answer);
  }
  cv_.notify_all();
}

void WorkloadPhases::Abort(const std::string& reason) {
  LOG_WARN("node: aborting: %s", reason);
  {
    std::lock_guard<std::mutex> lock(mu_);
    abort_ = true;
  }
  cv_.notify_all();
}

void WorkloadPhases::AfterReport() {
  std::unique_ptr<NodeWorkload> last;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_) return;  // a trim would slow the phase now running
    last = std::move(finished_);
  }
  if (last != nullptr) last->GiveBack();
}

}  // namespace ckpt
