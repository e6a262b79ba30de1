#include "coordinator/round/node_workers.h"

namespace ckpt {

NodeWorkers::NodeWorkers(size_t n) {
  workers_.reserve(n);
  for (size_t i = 0; i < n; ++i) workers_.push_back(std::make_unique<Worker>());
  for (size_t i = 0; i < n; ++i) {
    workers_[i]->thread = std::thread([this, i] { Loop(i); });
  }
}

NodeWorkers::~NodeWorkers() {
  for (auto& w : workers_) {
    {
      std::lock_guard<std::mutex> lock(w->mu);
      w->stop = true;
    }
    w->cv.notify_one();
  }
  for (auto& w : workers_) w->thread.join();
}

void NodeWorkers::Loop(size_t i) {
  Worker& w = *workers_[i];
  while (true) {
    const std::function<void(size_t)>* task = nullptr;
    {
      std::unique_lock<std::mutex> lock(w.mu);
      w.cv.wait(lock, [&w] { return w.stop || w.task != nullptr; });
      if (w.task == nullptr) return;  // stopped with nothing to run
      task = w.task;
      w.task = nullptr;
    }
    (*task)(i);
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(done_mu_);
      last = --remaining_ == 0;
    }
    if (last) done_cv_.notify_one();
  }
}

void NodeWorkers::ForEach(size_t count, const std::function<void(size_t)>& fn) {
  if (count > workers_.size()) count = workers_.size();
  if (count == 0) return;
  {
    std::lock_guard<std::mutex> lock(done_mu_);
    remaining_ = count;
  }
  for (size_t i = 0; i < count; ++i) {
    Worker& w = *workers_[i];
    {
      std::lock_guard<std::mutex> lock(w.mu);
      w.task = &fn;
    }
    w.cv.notify_one();
  }
  std::unique_lock<std::mutex> lock(done_mu_);
  done_cv_.wait(lock, [this] { return remaining_ == 0; });
}

void NodeFanout::Run(size_t count, const Call& call) {
  if (count > n_) count = n_;
  if (count == 0) return;
  std::mutex mu;
  std::condition_variable cv;
  size_t left = count;
  // Notifies under the lock: once `left` is 0 this frame may return, and
  // cv with it.
  const std::function<void()> done = [&] {
    std::lock_guard<std::mutex> lock(mu);
    if (--left == 0) cv.notify_one();
  };
  if (async_) {
    for (size_t i = 0; i < count; ++i) call(i, done);
  } else {
    if (!workers_) workers_ = std::make_unique<NodeWorkers>(n_);
    workers_->ForEach(count, [&](size_t i) { call(i, done); });
  }
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return left == 0; });
}

}  // namespace ckpt
