#include "node/round/progress_reporter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace ckpt {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

struct Waited {
  Clock::time_point done_at;   // when the worker was done
  Clock::time_point returned;  // when AwaitDone returned
};

// Waits in reporter.AwaitDone for a phase's one worker, done `after` from
// now; the worker is joined before this returns.
Waited AwaitWorker(ProgressReporter& reporter, milliseconds after) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Waited w;
  std::thread worker([&] {
    std::this_thread::sleep_for(after);
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    w.done_at = Clock::now();
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    reporter.AwaitDone(lock, cv, [&] { return done; });
    EXPECT_TRUE(done);
  }
  w.returned = Clock::now();
  worker.join();
  return w;
}

TEST(ProgressReporter, AwaitDoneSendsFromAnIntervalAfterTheStartUntilDone) {
  std::vector<Clock::time_point> sends;  // only the waiting thread sends
  ProgressReporter reporter([&] { sends.push_back(Clock::now()); }, 0.02);
  const auto begun = Clock::now();
  reporter.Start();
  const Clock::time_point done_at =
      AwaitWorker(reporter, milliseconds(110)).done_at;
  ASSERT_GE(sends.size(), 2u);
  // Never early: the first an interval after the start, each next an
  // interval after the last; so at most one per interval until done.
  EXPECT_GE(sends[0] - begun, milliseconds(20));
  for (size_t i = 1; i < sends.size(); ++i) {
    EXPECT_GE(sends[i] - sends[i - 1], milliseconds(20));
  }
  EXPECT_LE(sends.size(),
            static_cast<size_t>((done_at - begun) / milliseconds(20)));
  // None after Stop, though due.
  const size_t at_stop = sends.size();
  reporter.Stop();
  std::this_thread::sleep_for(milliseconds(30));
  reporter.SendIfDue();
  EXPECT_EQ(sends.size(), at_stop);
}

TEST(ProgressReporter, AwaitDoneReturnsWhenDoneNotAtTheNextSend) {
  std::atomic<int> sends{0};
  ProgressReporter reporter([&] { ++sends; }, 10);  // due in 10 s
  reporter.Start();
  const Waited w = AwaitWorker(reporter, milliseconds(50));
  EXPECT_LT(w.returned - w.done_at, std::chrono::seconds(2));
  EXPECT_EQ(sends, 0);
}

TEST(ProgressReporter, TheWaitersLockIsFreeWhileASendRuns) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::atomic<bool> taken_during_send{false};
  // The send ends the phase: a worker can take the waiter's lock only if
  // AwaitDone released it for the send.
  ProgressReporter reporter(
      [&] {
        std::thread worker([&] {
          std::lock_guard<std::mutex> lock(mu);
          taken_during_send = true;
          done = true;
          cv.notify_all();
        });
        worker.join();
      },
      0.01);
  reporter.Start();
  std::unique_lock<std::mutex> lock(mu);
  reporter.AwaitDone(lock, cv, [&] { return done; });
  EXPECT_TRUE(taken_during_send);
}

TEST(ProgressReporter, StoppedWhileWaitingItOnlyWaits) {
  std::atomic<int> sends{0};
  ProgressReporter reporter([&] { ++sends; }, 0.01);
  reporter.Start();
  reporter.Stop();  // as if the phase's report were already on its way
  AwaitWorker(reporter, milliseconds(60));
  EXPECT_EQ(sends, 0);
}

TEST(ProgressReporter, SendIfDueSendsOnlyOnceAnIntervalHasPassed) {
  std::atomic<int> sends{0};
  ProgressReporter reporter([&] { ++sends; }, 0.2);
  reporter.Start();
  reporter.SendIfDue();  // at the start: not due
  EXPECT_EQ(sends, 0);
  std::this_thread::sleep_for(milliseconds(220));
  reporter.SendIfDue();  // due
  reporter.SendIfDue();  // just sent: not due
  EXPECT_EQ(sends, 1);
  std::this_thread::sleep_for(milliseconds(220));
  reporter.SendIfDue();
  EXPECT_EQ(sends, 2);
  reporter.Stop();
  std::this_thread::sleep_for(milliseconds(220));
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
  reporter.Start();
  std::this_thread::sleep_for(milliseconds(5));
  std::thread sender([&] { reporter.SendIfDue(); });
  while (!in_send) std::this_thread::sleep_for(milliseconds(1));
  reporter.Stop();
  EXPECT_TRUE(send_done);
  sender.join();
}

TEST(ProgressReporter, WithoutASenderAwaitDoneOnlyWaits) {
  ProgressReporter reporter(nullptr, 0.001);
  reporter.Start();
  AwaitWorker(reporter, milliseconds(20));
  reporter.SendIfDue();  // nothing to send: no crash
}

// An interval from a hostile or mistaken coordinator: not a conversion's
// undefined behaviour; NaN or not above 0 is 1 s, infinite a day.
TEST(ProgressReporter, AnIntervalOutOfRangeIsMadeSane) {
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), -1.0, 0.0,
                     std::numeric_limits<double>::infinity(), 1e300}) {
    std::atomic<int> sends{0};
    ProgressReporter reporter([&] { ++sends; }, bad);
    reporter.Start();
    reporter.SendIfDue();  // none is due at once
    EXPECT_EQ(sends, 0) << bad;
  }
}

}  // namespace
}  // namespace ckpt
