#include "node/round/progress_reporter.h"

#include <optional>
#include <utility>

namespace ckpt {

ProgressReporter::ProgressReporter(std::function<void()> send,
                                   double interval_seconds)
    : send_(std::move(send)),
      interval_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(interval_seconds > 0 ? interval_seconds
                                                             : 1.0))),
      next_(Clock::now() + interval_) {}

void ProgressReporter::AwaitDone(std::unique_lock<std::mutex>& lock,
                                 std::condition_variable& cv,
                                 const std::function<bool()>& done) {
  if (!send_) {
    cv.wait(lock, done);
    return;
  }
  Clock::time_point due;
  {
    std::lock_guard<std::mutex> guard(mu_);
    due = next_;
  }
  while (!cv.wait_until(lock, due, done)) {
    lock.unlock();  // the phase's threads go on while progress is sent
    std::optional<Clock::time_point> next = SendIfDueAt(Clock::now());
    lock.lock();
    if (!next) {  // stopped: nothing more to send
      cv.wait(lock, done);
      return;
    }
    due = *next;
  }
}

void ProgressReporter::SendIfDue() {
  if (send_) SendIfDueAt(Clock::now());
}

std::optional<ProgressReporter::Clock::time_point>
ProgressReporter::SendIfDueAt(Clock::time_point now) {
  std::lock_guard<std::mutex> guard(mu_);
  if (stopped_) return std::nullopt;
  if (now < next_) return next_;
  send_();
  next_ = Clock::now() + interval_;  // an interval after this one ended
  return next_;
}

void ProgressReporter::Stop() {
  std::lock_guard<std::mutex> guard(mu_);
  stopped_ = true;
}

}  // namespace ckpt
