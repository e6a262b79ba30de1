#include "node/dataset/rank_loader.h"

#include <algorithm>
#include <thread>

#include "common/dataset/epoch_order.h"
#include "common/hash_mix.h"
#include "node/dataset/map_source.h"
#include "node/dataset/stream_source.h"

namespace ckpt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kStepWindow = 100;

double Seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

RankLoader::RankLoader(const LoaderParams& params, const SampleIndex& index,
                       RankShare plan, std::vector<LoaderWorker>* workers,
                       std::atomic<bool>* abort, std::atomic<uint64_t>* bytes)
    : p_(params),
      plan_(std::move(plan)),
      workers_(*workers),
      abort_(*abort),
      bytes_(*bytes),
      queues_(workers->size()),
      exhausted_(workers->size(), 0) {
  for (size_t w = 0; w < workers_.size(); ++w) {
    SourceContext ctx{&p_, &index, &workers_[w], &abort_, &bytes_};
    if (plan_.access == DataAccess::kIterable) {
      sources_.push_back(NewStreamSource(
          ctx,
          w < plan_.objects.size() ? plan_.objects[w] : std::vector<uint32_t>{},
          Mix64(plan_.shuffle_seed + w * kGolden)));
    } else {
      sources_.push_back(
          NewMapSource(ctx, plan_.samples, static_cast<uint32_t>(w)));
    }
  }
}

template <typename Ready>
void RankLoader::WaitFor(std::unique_lock<std::mutex>& lock, Ready ready) {
  while (!ready() && !abort_.load(std::memory_order_relaxed)) {
    cv_.wait_for(lock, kAbortPoll);
  }
}

void RankLoader::Fail(absl::Status s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = std::move(s);
  }
  abort_.store(true);
  cv_.notify_all();
}

void RankLoader::FirstMade(size_t w) {
  Queue& q = queues_[w];
  const LoaderWorker& lw = workers_[w];
  q.first_made = Clock::now();
  q.first.worker = static_cast<uint32_t>(w);
  q.first.samples_read = lw.samples;
  if (lw.counters != nullptr) {
    q.first.requests = lw.counters->requests.load() - q.requests0;
    q.first.new_connections =
        lw.counters->new_connections.load() - q.connections0;
    q.first.connect_seconds =
        static_cast<double>(lw.counters->connect_ns.load() - q.connect_ns0) /
        1e9;
  }
}

void RankLoader::Work(size_t w) {
  Queue& q = queues_[w];
  q.started = Clock::now();
  if (const ObjectStoreCounters* c = workers_[w].counters; c != nullptr) {
    q.requests0 = c->requests.load();
    q.connections0 = c->new_connections.load();
    q.connect_ns0 = c->connect_ns.load();
  }
  std::vector<uint32_t> batch;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      WaitFor(lock, [&] { return q.ready.size() < p_.prefetch_factor; });
    }
    if (abort_.load(std::memory_order_relaxed)) break;
    absl::StatusOr<bool> more = sources_[w]->Next(&batch);
    if (!more.ok()) {
      // Aborted because the flag was seen; any other error (an Aborted
      // from storage included) fails the rank.
      if (!abort_.load(std::memory_order_relaxed) ||
          !absl::IsAborted(more.status())) {
        Fail(more.status());
      }
      break;
    }
    if (!*more) break;
    ++workers_[w].batches;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (workers_[w].batches == 1) FirstMade(w);
      q.ready.push_back(std::move(batch));
    }
    batch = {};
    cv_.notify_all();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    q.done = true;
  }
  cv_.notify_all();
}

bool RankLoader::Take(size_t* turn, std::vector<uint32_t>* batch, size_t* from,
                      bool* aborted) {
  const size_t n = queues_.size();
  std::unique_lock<std::mutex> lock(mu_);
  for (size_t tried = 0; tried < n;) {
    const size_t w = *turn;
    if (exhausted_[w]) {
      *turn = (w + 1) % n;
      ++tried;
      continue;
    }
    Queue& q = queues_[w];
    WaitFor(lock, [&] { return !q.ready.empty() || q.done; });
    if (abort_.load(std::memory_order_relaxed)) {  // no more steps
      *aborted = true;
      return false;
    }
    if (!q.ready.empty()) {
      *batch = std::move(q.ready.front());
      q.ready.pop_front();
      *from = w;
      *turn = (w + 1) % n;
      return true;
    }
    exhausted_[w] = 1;  // done, and every batch of it taken
    tried = 0;
  }
  return false;
}

void RankLoader::FirstTaken(size_t w, Clock::time_point start,
                            Clock::time_point got) {
  std::lock_guard<std::mutex> lock(mu_);
  const Queue& q = queues_[w];
  FirstBatchParts& f = stats_.first_batch;
  f = q.first;
  // Each part from where the one before it ended, so that they add up to
  // the first batch's time; a worker started before the node's start
  // (never: the loaders start after it) counts from the start.
  const auto started = std::max(start, q.started);
  const auto made = std::max(started, q.first_made);
  f.worker_start_seconds = Seconds(start, started);
  f.connect_seconds = std::min(f.connect_seconds, Seconds(started, made));
  f.reads_seconds = Seconds(started, made) - f.connect_seconds;
  f.handoff_seconds = Seconds(made, std::max(made, got));
  stats_.first_batch_seconds = Seconds(start, got);
}

void RankLoader::Consumed(const std::vector<uint32_t>& batch) {
  for (uint32_t s : batch) {
    stats_.digest += SampleDigest(s);
    stats_.order_digest = ChainDigest(stats_.order_digest, s);
  }
  stats_.samples += batch.size();
  ++stats_.batches;
}

void RankLoader::AddStep(double seconds) {
  ++window_steps_;
  window_sum_ += seconds;
  window_sq_ += seconds * seconds;
  if (window_steps_ == kStepWindow) CloseWindow();
}

void RankLoader::CloseWindow() {
  if (window_steps_ == 0) return;
  const double mean = window_sum_ / static_cast<double>(window_steps_);
  stats_.windows.push_back(
      {window_steps_, mean,
       std::max(0.0, window_sq_ / static_cast<double>(window_steps_) -
                         mean * mean)});
  window_steps_ = 0;
  window_sum_ = window_sq_ = 0;
}

absl::Status RankLoader::Run(Clock::time_point start) {
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers_.size(); ++w) {
    threads.emplace_back([this, w] { Work(w); });
  }
  const auto compute = std::chrono::duration<double>(p_.compute_seconds);
  size_t turn = 0;
  bool aborted = false;
  std::vector<uint32_t> batch;
  size_t from = 0;
  while (true) {
    const auto t0 = Clock::now();
    if (!Take(&turn, &batch, &from, &aborted)) break;
    cv_.notify_all();  // a worker may make its next batch
    const auto got = Clock::now();
    stats_.wait.Record(ElapsedNs(t0, got));
    stats_.wait_seconds += Seconds(t0, got);
    if (stats_.batches == 0) FirstTaken(from, start, got);
    Consumed(batch);
    double computed = 0;
    if (p_.compute_seconds > 0) {
      std::this_thread::sleep_until(got + compute);
      computed = Seconds(got, Clock::now());
      stats_.compute_seconds += computed;
    }
    if (hook_ != nullptr) {
      // A checkpoint after this step holds the rank: the step is longer.
      absl::Status held =
          hook_->AfterStep(hook_rank_, stats_.batches, batch.size(), computed);
      if (!held.ok()) {
        if (!absl::IsAborted(held)) Fail(std::move(held));
        aborted = true;
        AddStep(Seconds(t0, Clock::now()));
        break;
      }
    }
    AddStep(Seconds(t0, Clock::now()));
  }
  stats_.seconds = Seconds(start, Clock::now());
  if (hook_ != nullptr && !aborted) {
    absl::Status done = hook_->RankDone(hook_rank_);
    if (!done.ok() && !absl::IsAborted(done)) Fail(std::move(done));
  }
  for (auto& t : threads) t.join();
  CloseWindow();
  stats_.bytes = bytes_.load();
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_.ok()) return error_;
  if (aborted) return absl::AbortedError("dataload: aborted");
  return absl::OkStatus();
}

}  // namespace ckpt
