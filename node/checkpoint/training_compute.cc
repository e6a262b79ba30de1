#include "node/checkpoint/training_compute.h"

#include <algorithm>
#include <chrono>
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
// seconds when passes is 0 (then *done gets the fewest passes a thread
// made). Returns wall seconds.
double RunThreads(int threads, uint64_t passes, double deadline,
                  const std::atomic<bool>* abort, uint64_t* done) {
  std::vector<std::thread> pool;
  std::vector<uint64_t> made(static_cast<size_t>(threads), 0);
  std::atomic<float> sink{0};
  const auto t0 = Clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::vector<float> a(kFloats, 1.0f);
      float acc = 0;
      uint64_t n = 0;
      while (passes > 0 ? n < passes : Since(t0) < deadline) {
        if (abort != nullptr && abort->load(std::memory_order_relaxed)) break;
        acc += Pass(a, static_cast<float>(n & 7));
        ++n;
      }
      made[static_cast<size_t>(t)] = n;
      sink.store(acc, std::memory_order_relaxed);
    });
  }
  for (auto& th : pool) th.join();
  if (done != nullptr) *done = *std::min_element(made.begin(), made.end());
  return Since(t0);
}

}  // namespace

TrainingCompute TrainingCompute::Calibrate(double seconds, int threads,
                                           double sample_seconds) {
  threads = std::max(1, threads);
  if (sample_seconds <= 0) sample_seconds = std::clamp(seconds / 4, 0.05, 0.5);
  // Two samples, the faster kept: a sample slowed by something else on the
  // node would make the baseline long and hide the slowdown it measures.
  double rate = 0;
  for (int i = 0; i < 2; ++i) {
    uint64_t made = 0;
    const double took = RunThreads(threads, 0, sample_seconds, nullptr, &made);
    rate =
        std::max(rate, static_cast<double>(std::max<uint64_t>(made, 1)) / took);
  }
  const uint64_t passes =
      std::max<uint64_t>(1, static_cast<uint64_t>(rate * seconds + 0.5));
  return TrainingCompute(threads, passes, static_cast<double>(passes) / rate);
}

double TrainingCompute::Run(const std::atomic<bool>* abort) const {
  return RunThreads(threads_, passes_, 0, abort, nullptr);
}

}  // namespace ckpt
