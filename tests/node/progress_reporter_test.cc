#include "node/round/progress_reporter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace ckpt {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

TEST(ProgressReporter, AwaitDoneSendsFromAnIntervalAfterTheStartUntilDone) {
  std::vector<Clock::time_point> sends;  // only the waiting thread sends
  const auto begun = Clock::now();
  ProgressReporter reporter([&] { sends.push_back(Clock::now()); }, 0.02);
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  // The phase's worker: done after about five intervals.
  std::thread worker([&] {
    std::this_thread::sleep_for(milliseconds(110));
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    reporter.AwaitDone(lock, cv, [&] { return done; });
    EXPECT_TRUE(done);
  }
  const auto returned = Clock::now();
  worker.join();
  ASSERT_GE(sends.size(), 2u);
  EXPECT_LE(sends.size(), 5u);
  // Never early: the first an interval after the start, each next an
  // interval after the last.
  EXPECT_GE(sends[0] - begun, milliseconds(20));
  for (size_t i = 1; i < sends.size(); ++i) {
    EXPECT_GE(sends[i] - sends[i - 1], milliseconds(20));
  }
  // Returned when done, not at the next send.
  EXPECT_LT(returned - begun, milliseconds(110 + 1000));
  // None after Stop, though due.
  const size_t at_stop = sends.size();
  reporter.Stop();
  std::this_thread::sleep_for(milliseconds(30));
  reporter.SendIfDue();
  EXPECT_EQ(sends.size(), at_stop);
}

TEST(ProgressReporter, SendIfDueSendsOnlyOnceAnIntervalHasPassed) {
  std::atomic<int> sends{0};
  ProgressReporter reporter([&] { ++sends; }, 0.05);
  reporter.SendIfDue();  // at the start: not due
  EXPECT_EQ(sends, 0);
  std::this_thread::sleep_for(milliseconds(60));
  reporter.SendIfDue();  // due
  reporter.SendIfDue();  // just sent: not due
  EXPECT_EQ(sends, 1);
  std::this_thread::sleep_for(milliseconds(60));
  reporter.SendIfDue();
  EXPECT_EQ(sends, 2);
  reporter.Stop();
  std::this_thread::sleep_for(milliseconds(60));
  reporter.SendIfDue();  // due, but stopped
  EXPECT_EQ(sends, 2);
}

TEST(ProgressReporter, StopWaitsForASendInFlight) {
  std::atomic<bool> in_send{false}, send_done{false};
  ProgressReporter reporter(
      [&] {
        in_send = true;
        std::this_thread::sleep_for(milliseconds(200));
        send_done = true;
      },
      0.001);
  std::this_thread::sleep_for(milliseconds(5));
  std::thread sender([&] { reporter.SendIfDue(); });
  while (!in_send) std::this_thread::sleep_for(milliseconds(1));
  reporter.Stop();
  EXPECT_TRUE(send_done);
  sender.join();
}

TEST(ProgressReporter, WithoutASenderAwaitDoneOnlyWaits) {
  ProgressReporter reporter(nullptr, 0.001);
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::thread worker([&] {
    std::this_thread::sleep_for(milliseconds(20));
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  reporter.AwaitDone(lock, cv, [&] { return done; });
  EXPECT_TRUE(done);
  lock.unlock();
  worker.join();
  reporter.SendIfDue();  // nothing to send: no crash
}

}  // namespace
}  // namespace ckpt
