// A running phase's progress, sent every interval from a thread the phase
// already has: the one that waits for its workers (AwaitDone), or the one
// that does its work (SendIfDue). A workload sends progress only while it
// waits or works through one of these. No thread of its own: with a
// ticking thread per node (woken at every round's start),
// coordination_bench's rounds at 256 agents in one process took 450 ms at
// the median against 368 ms without (4 alternating pairs, 2 cores). Each
// send comes an interval after the last one ended (the first, an interval
// after Start), so a slow send (a congested link) is not followed by sends
// back to back. Made by the round protocol (workload_phase.h) before the
// start instant, started at it, and handed to the phase in its context.
// Thread-safe; once Stop returns nothing more is sent (a send in flight is
// waited for).
#ifndef CKPTBENCH_NODE_ROUND_PROGRESS_REPORTER_H_
#define CKPTBENCH_NODE_ROUND_PROGRESS_REPORTER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

namespace ckpt {

class ProgressReporter {
 public:
  // `send` sends the phase's progress now; empty, nothing is sent (a
  // caller that takes no progress) and AwaitDone only waits. It must not
  // take a lock a caller of AwaitDone holds. `interval_seconds` not above
  // 0 (or NaN) is 1 s; above a day, a day.
  ProgressReporter(std::function<void()> send, double interval_seconds);
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // The phase starts now: the first send is due an interval from now.
  // Allocates nothing (called at the start instant).
  void Start();
  // Waits until `done()` holds, checked under `lock` (whoever makes it
  // true notifies `cv`), sending progress whenever it is due meanwhile;
  // `lock` is released while a send runs.
  void AwaitDone(std::unique_lock<std::mutex>& lock,
                 std::condition_variable& cv,
                 const std::function<bool()>& done);
  // Sends progress if it is due; cheap when it is not.
  void SendIfDue();
  void Stop();

 private:
  using Clock = std::chrono::steady_clock;
  // Sends if due now; the instant the next is due (none once stopped).
  std::optional<Clock::time_point> SendIfDueNow();
  Clock::time_point Due() const {
    return Clock::time_point(Clock::duration(next_.load()));
  }

  const std::function<void()> send_;
  const Clock::duration interval_;
  // When the next send is due: read without mu_, so AwaitDone, holding
  // its caller's lock, never waits for a send in flight.
  std::atomic<Clock::rep> next_;
  std::mutex mu_;  // held while a send runs
  bool stopped_ = false;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_ROUND_PROGRESS_REPORTER_H_
