#include "node/dataset/rank_loader.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/epoch_order.h"
#include "common/error_kind.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "node/checkpoint/pattern.h"
#include "node/dataset/dataset_bytes.h"
#include "node/storage/timed_storage.h"

namespace ckpt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kStepWindow = 100;

// The abort flag is also set from outside (another rank's failure, the
// coordinator's Abort) with no notify of this loader's condition variable:
// every wait looks at it again at least this often.
constexpr auto kAbortPoll = std::chrono::milliseconds(20);

double Seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

uint64_t Ns(Clock::time_point from, Clock::time_point to) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count());
}

}  // namespace

RankLoader::RankLoader(const LoaderParams& params, const SampleIndex& index,
                       std::vector<uint32_t> samples,
                       std::vector<LoaderWorker>* workers,
                       std::atomic<bool>* abort,
                       std::atomic<uint64_t>* bytes_done)
    : p_(params),
      index_(index),
      samples_(std::move(samples)),
      workers_(*workers),
      abort_(*abort),
      bytes_done_(*bytes_done),
      batches_((samples_.size() + p_.batch_size - 1) / p_.batch_size),
      ready_(batches_, 0) {}

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

absl::Status RankLoader::ReadSample(LoaderWorker& worker, uint64_t sample,
                                    std::vector<unsigned char>& buffer) {
  const SampleLocation loc = index_.Locate(sample);
  const std::string path = JoinPath(p_.root, loc.object);
  ReadOptions options;
  options.size = loc.object_size;
  options.extents = {{loc.offset, loc.offset + loc.size}};
  const uint64_t key = SampleStreamKey(index_.spec().seed, sample);
  TimedStorage timed(*worker.storage, &worker.ops);
  const auto t0 = Clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<ReadableFile> f,
                   timed.OpenRead(path, options));
  for (uint64_t done = 0; done < loc.size;) {
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>(buffer.size(), loc.size - done));
    size_t got = 0;
    while (got < want) {
      ASSIGN_OR_RETURN(size_t n, f->Read(loc.offset + done + got,
                                         buffer.data() + got, want - got));
      if (n == 0) {
        return absl::DataLossError(absl::StrCat(
            "sample ", SampleKey(sample), " in ", loc.object, " ends after ",
            done + got, " of its ", loc.size, " bytes"));
      }
      got += n;
    }
    if (done == 0) worker.first_byte.Record(Ns(t0, Clock::now()));
    const size_t bad = FirstPatternMismatch(key, done, buffer.data(), got);
    if (bad < got) {
      return absl::DataLossError(absl::StrCat(
          "sample ", SampleKey(sample), " in ", loc.object, ": byte ",
          done + bad, " of its data differs from what datagen wrote"));
    }
    done += got;
    bytes_.fetch_add(got, std::memory_order_relaxed);
    bytes_done_.fetch_add(got, std::memory_order_relaxed);
  }
  worker.last_byte.Record(Ns(t0, Clock::now()));
  (void)f->Close();
  ++worker.samples;
  if (p_.preprocess_seconds > 0) {
    std::this_thread::sleep_for(
        std::chrono::duration<double>(p_.preprocess_seconds));
  }
  return absl::OkStatus();
}

absl::Status RankLoader::ReadBatch(LoaderWorker& worker, uint64_t batch,
                                   std::vector<unsigned char>& buffer) {
  const uint64_t first = batch * p_.batch_size;
  const uint64_t end =
      std::min<uint64_t>(first + p_.batch_size, samples_.size());
  for (uint64_t k = first; k < end; ++k) {
    if (abort_.load(std::memory_order_relaxed)) {
      return absl::AbortedError("dataload: aborted");
    }
    RETURN_IF_ERROR(ReadSample(worker, samples_[k], buffer));
  }
  ++worker.batches;
  return absl::OkStatus();
}

void RankLoader::Work(size_t w) {
  LoaderWorker& worker = workers_[w];
  std::vector<unsigned char> buffer(static_cast<size_t>(std::min<uint64_t>(
      p_.block_size,
      std::max<uint64_t>(index_.spec().sample_bytes * 2, 64 * 1024))));
  const uint64_t ahead =
      static_cast<uint64_t>(p_.prefetch_factor) * p_.num_workers;
  for (uint64_t b = w; b < batches_; b += p_.num_workers) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      WaitFor(lock, [&] { return b < consumed_ + ahead; });
    }
    if (abort_.load(std::memory_order_relaxed)) return;
    absl::Status s = ReadBatch(worker, b, buffer);
    if (!s.ok()) {
      if (!absl::IsAborted(s)) Fail(std::move(s));
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_[b] = 1;
    }
    cv_.notify_all();
  }
}

void RankLoader::AddStep(double seconds) {
  ++window_steps_;
  window_sum_ += seconds;
  window_sq_ += seconds * seconds;
  if (window_steps_ == kStepWindow) {
    const double mean = window_sum_ / window_steps_;
    stats_.windows.push_back(
        {window_steps_, mean,
         std::max(0.0, window_sq_ / window_steps_ - mean * mean)});
    window_steps_ = 0;
    window_sum_ = window_sq_ = 0;
  }
}

absl::Status RankLoader::Run(Clock::time_point start) {
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers_.size(); ++w) {
    threads.emplace_back([this, w] { Work(w); });
  }
  const auto compute = std::chrono::duration<double>(p_.compute_seconds);
  for (uint64_t b = 0; b < batches_; ++b) {
    const auto t0 = Clock::now();
    {
      std::unique_lock<std::mutex> lock(mu_);
      WaitFor(lock, [&] { return ready_[b] != 0; });
      if (ready_[b] == 0) break;  // aborted
      consumed_ = b + 1;
    }
    cv_.notify_all();
    const auto got = Clock::now();
    stats_.wait.Record(Ns(t0, got));
    stats_.wait_seconds += Seconds(t0, got);
    if (b == 0) stats_.first_batch_seconds = Seconds(start, got);
    if (p_.compute_seconds > 0) {
      std::this_thread::sleep_until(got + compute);
      stats_.compute_seconds += Seconds(got, Clock::now());
    }
    ++stats_.batches;
    AddStep(Seconds(t0, Clock::now()));
  }
  stats_.seconds = Seconds(start, Clock::now());
  {
    std::lock_guard<std::mutex> lock(mu_);
    consumed_ = batches_;  // no worker waits on a consumer that is gone
  }
  cv_.notify_all();
  for (auto& t : threads) t.join();
  if (window_steps_ > 0) {
    const double mean = window_sum_ / window_steps_;
    stats_.windows.push_back(
        {window_steps_, mean,
         std::max(0.0, window_sq_ / window_steps_ - mean * mean)});
  }
  stats_.bytes = bytes_.load();
  for (uint64_t k = 0;
       k < stats_.batches * p_.batch_size && k < samples_.size(); ++k) {
    stats_.digest += SampleDigest(samples_[k]);
    stats_.order_digest = ChainDigest(stats_.order_digest, samples_[k]);
    ++stats_.samples;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_.ok()) return error_;
  if (stats_.batches < batches_) return absl::AbortedError("dataload: aborted");
  return absl::OkStatus();
}

}  // namespace ckpt
