#include "common/bounded_tasks.h"

#include <algorithm>

namespace ckpt {

BoundedTasks::BoundedTasks(int max_in_flight)
    : max_(static_cast<size_t>(std::max(1, max_in_flight))) {}

BoundedTasks::~BoundedTasks() {
  (void)Wait(0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

absl::Status BoundedTasks::TakeError() {
  absl::Status e = std::move(error_);
  error_ = absl::OkStatus();
  return e;
}

absl::Status BoundedTasks::Start(std::function<absl::Status()> task) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return pending_ < max_ || !error_.ok(); });
  if (!error_.ok()) return TakeError();
  queue_.push_back(std::move(task));
  ++pending_;
  if (idle_ == 0 && workers_.size() < max_) {
    workers_.emplace_back([this] { Work(); });
  }
  cv_.notify_all();
  return absl::OkStatus();
}

absl::Status BoundedTasks::Wait(size_t keep) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return pending_ <= keep; });
  return TakeError();
}

void BoundedTasks::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ++idle_;
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    --idle_;
    if (queue_.empty()) return;  // stopping with nothing left
    auto task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    absl::Status s = task();
    task = nullptr;  // what it holds is released before it counts as done
    lock.lock();
    if (!s.ok() && error_.ok()) error_ = std::move(s);
    --pending_;
    cv_.notify_all();
  }
}

}  // namespace ckpt
