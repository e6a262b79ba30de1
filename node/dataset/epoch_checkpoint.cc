#include "node/dataset/epoch_checkpoint.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/error_kind.h"
#include "common/memory.h"
#include "common/status_macros.h"
#include "wire/dataload_report_codec.h"

namespace ckpt {

absl::StatusOr<std::unique_ptr<EpochCheckpointer>> EpochCheckpointer::Prepare(
    const EpochCheckpointJob& job, StorageSet& storage, size_t ranks) {
  std::unique_ptr<EpochCheckpointer> c(
      new EpochCheckpointer(job.save, storage, ranks, job.every_batches,
                            job.first_step, job.first_step_uri));
  PhaseJob first = c->save_;
  first.step = c->step_;
  if (first.loop.async) {
    // The training state and its staged copy, held for the whole epoch.
    uint64_t need = 0;
    for (const auto& r : first.ranks) {
      for (const auto& f : r.files) need += 2 * f.size;
    }
    const MemoryBudget budget = AvailableMemory();
    if (budget.available_bytes > 0 && need > budget.available_bytes / 10 * 8) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "dataload.checkpoint_every with run.async (CKPT_ASYNC): this node's "
          "ranks hold their checkpoint twice (its state and the staged copy), ",
          FormatBytes(need), ", more than 80% of the ",
          FormatBytes(budget.available_bytes), " available (", budget.source,
          "); expected a smaller model (model.*), fewer ranks per node, or "
          "sync saves"));
    }
  }
  RETURN_IF_ERROR(FillSaveState(first, &c->state_));
  return c;
}

EpochCheckpointer::EpochCheckpointer(PhaseJob save, StorageSet& storage,
                                     size_t ranks, uint32_t every,
                                     uint64_t step, std::string step_uri)
    : save_(std::move(save)),
      storage_(storage),
      ranks_(ranks),
      every_(every),
      async_(save_.loop.async),
      step_(step),
      step_uri_(std::move(step_uri)) {}

EpochCheckpointer::~EpochCheckpointer() {
  if (persist_.joinable()) persist_.join();
}

void EpochCheckpointer::Start(const NodePhaseContext& ctx,
                              Clock::time_point start) {
  ctx_ = ctx;
  start_ = start;
  quiet_ = std::make_unique<ProgressReporter>(nullptr, 1.0);
  quiet_->Start();
}

double EpochCheckpointer::Now() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

absl::Status EpochCheckpointer::Fail(absl::Status s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = s;
  }
  ctx_.abort->store(true);
  cv_.notify_all();
  return s;
}

absl::StatusOr<EpochSaveAnswer> EpochCheckpointer::Ask(
    const EpochSaveAsk& ask) {
  ASSIGN_OR_RETURN(const std::string payload,
                   ctx_.ask(EncodeEpochSaveAsk(ask)));
  return DecodeEpochSaveAnswer(payload);
}

absl::Status EpochCheckpointer::AwaitRelease(std::unique_lock<std::mutex>& lock,
                                             uint32_t k) {
  while (released_ < k && error_.ok() &&
         !ctx_.abort->load(std::memory_order_relaxed)) {
    cv_.wait_for(lock, kAbortPoll);
  }
  if (released_ >= k) return absl::OkStatus();
  return absl::AbortedError("dataload: aborted during a checkpoint");
}

void EpochCheckpointer::Release(uint32_t k) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (released_ >= k) return;
    released_ = k;
    arrived_ = 0;
    if (!saves_.empty() && saves_.back().save == k) {
      saves_.back().blocked_seconds = Now() - saves_.back().start_seconds;
    }
  }
  cv_.notify_all();
}

void EpochCheckpointer::CloseWindow(uint32_t k) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < saves_.size(); ++i) {
    if (saves_[i].save != k || !open_[i]) continue;
    open_[i] = 0;
    const double now = Now();
    saves_[i].end_seconds = now;
    if (--open_count_ == 0) any_open_.emplace_back(any_open_since_, now);
  }
}

absl::Status EpochCheckpointer::AfterStep(size_t /*rank*/, uint64_t batches,
                                          uint64_t samples,
                                          double compute_seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  last_step_ = Now();
  for (size_t i = 0; i < saves_.size(); ++i) {
    if (!open_[i]) continue;
    EpochSaveStats& w = saves_[i];
    w.window_samples += samples;
    w.window_compute_seconds += compute_seconds;
  }
  if (open_count_ > 0) {
    any_open_samples_ += samples;
    any_open_compute_ += compute_seconds;
  }
  if (skipping_ || batches % every_ != 0) return absl::OkStatus();
  const uint32_t k = next_;
  if (arrived_ == 0) first_arrival_ = Now();
  batch_ = batches;
  ++arrived_;
  if (arrived_ + done_ < ranks_) return AwaitRelease(lock, k);
  ++next_;
  OpenWindow(k);
  lock.unlock();
  return Lead(k);
}

void EpochCheckpointer::OpenWindow(uint32_t k) {
  // The save starts once every rank of the node is at the batch (or done):
  // from here on none consumes until it lets them go.
  const double now = Now();
  EpochSaveStats& w = saves_.emplace_back();
  w.save = k;
  w.batch = batch_;
  w.start_seconds = now;
  w.arrival_spread_seconds = std::max(0.0, now - first_arrival_);
  open_.push_back(1);
  if (open_count_++ == 0) any_open_since_ = now;
}

absl::Status EpochCheckpointer::RankDone(size_t /*rank*/) {
  std::unique_lock<std::mutex> lock(mu_);
  ++done_;
  if (skipping_ || arrived_ + done_ < ranks_) return absl::OkStatus();
  if (arrived_ > 0) {  // the others wait at a save: this rank leads it
    const uint32_t k = next_++;
    OpenWindow(k);
    lock.unlock();
    return Lead(k);
  }
  // None of the node's ranks reached the next save: say so, so no node
  // waits for this one at it.
  skipping_ = true;
  const uint32_t k = next_;
  lock.unlock();
  if (persist_.joinable()) persist_.join();
  EpochSaveAsk ask;
  ask.save = k;
  ask.finished = true;
  auto answer = Ask(ask);
  if (!answer.ok()) return Fail(answer.status());
  return absl::OkStatus();
}

absl::Status EpochCheckpointer::Lead(uint32_t k) {
  // An async save still persisting: this one waits for it (the ranks are
  // held meanwhile, as a checkpointer with one save in flight holds them).
  if (persist_.joinable()) persist_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_.ok()) return error_;
  }
  EpochSaveAsk begin;
  begin.save = k;
  auto answer = Ask(begin);
  if (!answer.ok()) return Fail(answer.status());
  if (answer->skip) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      skipping_ = true;
      if (!saves_.empty() && saves_.back().save == k) {
        // No save: its window's figures go, the time its ranks were held
        // stays out of the epoch's rest.
        if (open_.back() && --open_count_ == 0) {
          any_open_.emplace_back(any_open_since_, Now());
        }
        saves_.pop_back();
        open_.pop_back();
      }
    }
    Release(k);
    return absl::OkStatus();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    saves_.back().step = answer->step;
  }
  PhaseJob job = save_;
  job.step = answer->step;
  job.step_uri = answer->step_uri;
  if (job.step != step_ && async_) {
    return Fail(absl::InternalError(
        absl::StrCat("dataload: the coordinator named step ", job.step,
                     " for a save whose state was made for step ", step_)));
  }
  auto w = std::make_unique<CheckpointWorkload>();
  w->Embed(&state_, [this, k] { Release(k); });
  auto prepared = w->Prepare(std::move(job), storage_, *ctx_.abort);
  if (!prepared.ok()) {
    return Fail(WithPrefix(prepared.status(),
                           absl::StrCat("checkpoint ", k, " of the epoch: ")));
  }
  NodePhaseContext sub;
  sub.round_id = ctx_.round_id;
  sub.abort = ctx_.abort;
  sub.progress = quiet_.get();
  if (!async_) {
    PhaseOutcome out = w->Run(sub);
    absl::Status s = Saved(k, out, *prepared);
    CloseWindow(k);  // before any rank goes on
    Release(k);
    return s;
  }
  persisting_ = std::move(w);
  // Assigned under mu_: the ranks it lets go (Release takes mu_) may lead
  // the next save or finish at once, and they look at persist_.
  std::unique_lock<std::mutex> lock(mu_);
  persist_ = std::thread([this, k, sub, found = *std::move(prepared)] {
    PhaseOutcome out = persisting_->Run(sub);
    persisting_.reset();
    Release(k);  // staging failed: the ranks were not let go yet
    (void)Saved(k, out, found);
  });
  return AwaitRelease(lock, k);
}

absl::Status EpochCheckpointer::Saved(uint32_t k, const PhaseOutcome& out,
                                      const PrepareOutcome& prepared) {
  if (!out.status.ok()) {
    CloseWindow(k);
    return Fail(WithPrefix(out.status,
                           absl::StrCat("checkpoint ", k, " of the epoch: ")));
  }
  EpochSaveAsk saved;
  saved.save = k;
  saved.saved = true;
  saved.report = out;
  saved.prepared = prepared;
  auto answer = Ask(saved);
  if (async_) CloseWindow(k);  // a sync save's closes as the ranks go on
  if (!answer.ok()) return Fail(answer.status());
  step_ = answer->next_step;
  step_uri_ = answer->next_step_uri;
  if (!async_) return absl::OkStatus();
  // The next save's training state, made beside the epoch (a real job's
  // state changes by itself; this costs the node CPU it would not).
  const auto t0 = Clock::now();
  PhaseJob next = save_;
  next.step = step_;
  absl::Status s = FillSaveState(next, &state_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& w : saves_) {
      if (w.save == k) {
        w.state_seconds =
            std::chrono::duration<double>(Clock::now() - t0).count();
      }
    }
  }
  if (!s.ok()) return Fail(s);
  return absl::OkStatus();
}

absl::Status EpochCheckpointer::Finish() {
  if (persist_.joinable()) persist_.join();
  quiet_->Stop();
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

void EpochCheckpointer::Report(DataloadReport* report) const {
  std::lock_guard<std::mutex> lock(mu_);
  report->saves.insert(report->saves.end(), saves_.begin(), saves_.end());
  // The periods any window was open, up to the last batch consumed: after
  // it a save persists beside nothing.
  double open = 0;
  for (const auto& [from, to] : any_open_) {
    open += std::max(0.0, std::min(to, last_step_) - from);
  }
  if (open_count_ > 0) open += std::max(0.0, last_step_ - any_open_since_);
  report->checkpoint_window_seconds = open;
  report->checkpoint_window_samples = any_open_samples_;
  report->checkpoint_window_compute_seconds = any_open_compute_;
}

}  // namespace ckpt
