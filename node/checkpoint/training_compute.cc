#include "node/checkpoint/training_compute.h"

#include <algorithm>
#include <chrono>
#include <latch>
#include <numeric>
#include <thread>
#include <vector>

namespace ckpt {
namespace {

constexpr size_t kFloats = (16 << 20) / sizeof(float);  // working set

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One pass: every element through a multiply-add; returns a value that
// depends on all of them so the work cannot be left out.
float Pass(std::vector<float>& a, float k) {
  float acc = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = a[i] * 0.999f + k;
    acc += a[i];
  }
  return acc;
}

// Runs `passes` passes on each of `threads` threads, or until `deadline`
// seconds when passes is 0; *done (when given) gets the passes all threads
// made together. Returns wall seconds from the moment every thread holds its
// working set to the last thread done: the allocation is not timed, since
// first-touching 16 MiB can take tens of milliseconds on a VM, longer
// than a short calibration sample.
double RunThreads(int threads, uint64_t passes, double deadline,
                  const std::atomic<bool>* abort, uint64_t* done) {
  std::vector<std::thread> pool;
  std::vector<uint64_t> made(static_cast<size_t>(threads), 0);
  std::atomic<float> sink{0};
  std::latch ready(threads);
  std::latch go(1);
  Clock::time_point t0;
  auto aborted = [abort] {
    return abort != nullptr && abort->load(std::memory_order_relaxed);
  };
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      // Aborted before the start: no working set, no pass.
      std::vector<float> a(aborted() ? 0 : kFloats, 1.0f);
      ready.count_down();
      go.wait();
      float acc = 0;
      uint64_t n = 0;
      while (!a.empty() && (passes > 0 ? n < passes : Since(t0) < deadline)) {
        if (aborted()) break;
        acc += Pass(a, static_cast<float>(n & 7));
        ++n;
      }
      made[static_cast<size_t>(t)] = n;
      sink.store(acc, std::memory_order_relaxed);
    });
  }
  ready.wait();
  t0 = Clock::now();
  go.count_down();
  for (auto& th : pool) th.join();
  if (done != nullptr) *done = std::accumulate(made.begin(), made.end(), 0ull);
  return Since(t0);
}

}  // namespace

TrainingCompute TrainingCompute::Calibrate(double seconds, int threads,
                                           double sample_seconds) {
  threads = std::max(1, threads);
  if (sample_seconds <= 0) sample_seconds = std::clamp(seconds / 4, 0.05, 0.5);
  // Two samples, the faster kept: a sample slowed by something else on the
  // node would make the baseline long and hide the slowdown it measures.
  // The rate is per thread on average, not the slowest thread's: with more
  // threads than cores the scheduler shares the cores unevenly within a
  // sample, but a run of fixed passes ends when the total work is done.
  double rate = 0;
  for (int i = 0; i < 2; ++i) {
    uint64_t made = 0;
    const double took = RunThreads(threads, 0, sample_seconds, nullptr, &made);
    const double per_thread =
        static_cast<double>(std::max<uint64_t>(made, 1)) / threads;
    rate = std::max(rate, per_thread / took);
  }
  const uint64_t passes =
      std::max<uint64_t>(1, static_cast<uint64_t>(rate * seconds + 0.5));
  return TrainingCompute(threads, passes, static_cast<double>(passes) / rate);
}

double TrainingCompute::Run(const std::atomic<bool>* abort,
                            uint64_t* made) const {
  return RunThreads(threads_, passes_, 0, abort, made);
}

}  // namespace ckpt
