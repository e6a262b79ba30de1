#include "node/storage/buffer_pool.h"

#include <algorithm>
#include <utility>

namespace ckpt {

BufferPool::Lease& BufferPool::Lease::operator=(Lease&& o) noexcept {
  if (this != &o) {
    Lease gone(std::move(*this));
    pool_ = std::move(o.pool_);
    data_ = std::move(o.data_);
    capacity_ = std::exchange(o.capacity_, 0);
  }
  return *this;
}

BufferPool::Lease::~Lease() {
  if (pool_ != nullptr && data_ != nullptr) {
    pool_->Give(std::move(data_), capacity_);
  }
}

BufferPool::BufferPool() : state_(std::make_shared<State>()) {}

BufferPool::Lease BufferPool::Take(size_t size) {
  Lease lease;
  lease.capacity_ = size;
  if (size < kPooledFrom) {
    lease.data_.reset(new char[size]);
    return lease;
  }
  lease.pool_ = state_;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    ++state_->lent;
    auto best = state_->free.end();
    for (auto it = state_->free.begin(); it != state_->free.end(); ++it) {
      if (it->capacity >= size &&
          (best == state_->free.end() || it->capacity < best->capacity)) {
        best = it;
      }
    }
    if (best != state_->free.end()) {
      lease.data_ = std::move(best->data);
      lease.capacity_ = best->capacity;
      state_->free.erase(best);
      return lease;
    }
    ++state_->made;
  }
  lease.data_.reset(new char[size]);
  return lease;
}

void BufferPool::State::Give(std::unique_ptr<char[]> data, size_t capacity) {
  std::lock_guard<std::mutex> lock(mu);
  --lent;
  free.push_back({std::move(data), capacity});
}

size_t BufferPool::Trim() {
  std::vector<Block> gone;  // freed outside the lock
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    gone.swap(state_->free);
  }
  return gone.size();
}

size_t BufferPool::free_count() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->free.size();
}

size_t BufferPool::made_count() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->made;
}

size_t BufferPool::lent_count() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->lent;
}

}  // namespace ckpt
