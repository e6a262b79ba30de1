#include "node/round/progress_ticker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "common/clock.h"

namespace ckpt {
namespace {

using Clock = std::chrono::steady_clock;

// Waits (at most 10 s) until `pred`; whether it came true.
template <typename Pred>
bool WaitFor(Pred pred) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (!pred()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(ProgressTicker, TicksFromAnIntervalAfterTheStartUntilEnd) {
  ProgressTicker ticker;
  for (int phase = 0; phase < 2; ++phase) {  // the same thread for both
    std::mutex mu;
    std::vector<Clock::time_point> ticks;
    const double interval = 0.02;
    const auto begun = Clock::now();
    ticker.Begin(
        [&] {
          std::lock_guard<std::mutex> lock(mu);
          ticks.push_back(Clock::now());
        },
        NowUnixNs() + 100'000'000, interval);  // starts in 0.1 s
    // Ended before `ticks` goes, should an assertion return early.
    absl::Cleanup end = [&] { ticker.End(); };
    ASSERT_TRUE(WaitFor([&] {
      std::lock_guard<std::mutex> lock(mu);
      return ticks.size() >= 3;
    }));
    ticker.End();
    size_t after_end;
    {
      std::lock_guard<std::mutex> lock(mu);
      after_end = ticks.size();
      // Never early: the first an interval after the start instant
      // (a millisecond's slack for the two clocks' readings).
      EXPECT_GE(ticks[0] - begun, std::chrono::milliseconds(119));
    }
    // None after End.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(ticks.size(), after_end);
  }
}

TEST(ProgressTicker, EndWaitsForARunningTick) {
  ProgressTicker ticker;
  std::atomic<bool> in_tick{false}, tick_done{false};
  ticker.Begin(
      [&] {
        if (tick_done) return;
        in_tick = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        tick_done = true;
      },
      NowUnixNs(), 0.001);
  absl::Cleanup end = [&] { ticker.End(); };
  ASSERT_TRUE(WaitFor([&] { return in_tick.load(); }));
  ticker.End();
  EXPECT_TRUE(tick_done);
}

}  // namespace
}  // namespace ckpt
