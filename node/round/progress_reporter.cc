#include "node/round/progress_reporter.h"

#include <algorithm>
#include <utility>

namespace ckpt {

namespace {

double SaneInterval(double seconds) {
  if (!(seconds > 0)) return 1.0;  // NaN included
  return std::min(seconds, 86400.0);
}

}  // namespace

ProgressReporter::ProgressReporter(std::function<void()> send,
                                   double interval_seconds)
    : send_(std::move(send)),
      interval_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(SaneInterval(interval_seconds)))),
      next_((Clock::now() + interval_).time_since_epoch().count()) {}

void ProgressReporter::Start() {
  next_ = (Clock::now() + interval_).time_since_epoch().count();
}

void ProgressReporter::AwaitDone(std::unique_lock<std::mutex>& lock,
                                 std::condition_variable& cv,
                                 const std::function<bool()>& done) {
  if (!send_) {
    cv.wait(lock, done);
    return;
  }
  Clock::time_point due = Due();
  while (!cv.wait_until(lock, due, done)) {
    lock.unlock();  // the phase's threads go on while progress is sent
    std::optional<Clock::time_point> next = SendIfDueNow();
    lock.lock();
    if (!next) {  // stopped: nothing more to send
      cv.wait(lock, done);
      return;
    }
    due = *next;
  }
}

void ProgressReporter::SendIfDue() {
  if (send_) SendIfDueNow();
}

std::optional<ProgressReporter::Clock::time_point>
ProgressReporter::SendIfDueNow() {
  const Clock::time_point now = Clock::now();
  if (now < Due()) return Due();  // cheap: no lock
  std::lock_guard<std::mutex> guard(mu_);
  if (stopped_) return std::nullopt;
  if (now < Due()) return Due();  // another thread just sent
  send_();
  // An interval after this one ended.
  next_ = (Clock::now() + interval_).time_since_epoch().count();
  return Due();
}

void ProgressReporter::Stop() {
  std::lock_guard<std::mutex> guard(mu_);
  stopped_ = true;
}

}  // namespace ckpt
