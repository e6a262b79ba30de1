#include "node/round/progress_ticker.h"

#include <utility>

#include "node/round/phase_start.h"

namespace ckpt {

ProgressTicker::~ProgressTicker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressTicker::Begin(std::function<void()> tick, int64_t start_at_unix_ns,
                           double interval_seconds) {
  using namespace std::chrono;
  const auto interval = duration_cast<steady_clock::duration>(
      duration<double>(interval_seconds > 0 ? interval_seconds : 1.0));
  // The start instant on the monotonic clock, converted as
  // SleepUntilStart converts it.
  const steady_clock::time_point start{
      nanoseconds(MonotonicNsOf(start_at_unix_ns))};
  {
    std::lock_guard<std::mutex> lock(mu_);
    tick_ = std::move(tick);
    interval_ = interval;
    next_ = start + interval;
    ++generation_;
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  }
  cv_.notify_all();
}

void ProgressTicker::End() {
  std::lock_guard<std::mutex> lock(mu_);
  tick_ = nullptr;
}

void ProgressTicker::Loop() {
  using std::chrono::steady_clock;
  std::unique_lock<std::mutex> lock(mu_);
  while (!shutdown_) {
    if (!tick_) {
      cv_.wait(lock, [&] { return shutdown_ || tick_ != nullptr; });
      continue;
    }
    const uint64_t generation = generation_;
    if (cv_.wait_until(lock, next_, [&] {
          return shutdown_ || generation_ != generation || !tick_;
        })) {
      continue;  // shut down, ended, or a new phase began
    }
    tick_();  // under the lock: End waits for it
    // The next an interval after this one ended: a slow send (a congested
    // link) is not followed by ticks back to back.
    next_ = steady_clock::now() + interval_;
  }
}

}  // namespace ckpt
