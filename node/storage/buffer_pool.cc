#include "node/storage/buffer_pool.h"

#include <bit>
#include <utility>

namespace ckpt {

BufferPool::Lease& BufferPool::Lease::operator=(Lease&& o) noexcept {
  if (this != &o) {
    Lease gone;  // this one's buffer, given back as it goes
    gone.pool_ = std::move(pool_);
    gone.data_ = std::move(data_);
    gone.capacity_ = capacity_;
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
  if (size < kPooledFrom) {
    lease.data_.reset(new char[size]);
    lease.capacity_ = size;
    return lease;
  }
  lease.capacity_ = std::bit_ceil(size);
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    for (auto it = state_->free.begin(); it != state_->free.end(); ++it) {
      if (it->first != lease.capacity_) continue;
      lease.data_ = std::move(it->second);
      state_->free.erase(it);
      ++state_->lent;
      lease.pool_ = state_;
      return lease;
    }
  }
  lease.data_.reset(new char[lease.capacity_]);
  std::lock_guard<std::mutex> lock(state_->mu);
  ++state_->lent;
  ++state_->made;
  lease.pool_ = state_;
  return lease;
}

void BufferPool::State::Give(std::unique_ptr<char[]> data, size_t capacity) {
  std::lock_guard<std::mutex> lock(mu);
  --lent;
  free.emplace_back(capacity, std::move(data));
}

size_t BufferPool::Trim() {
  std::vector<std::pair<size_t, std::unique_ptr<char[]>>> gone;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    gone.swap(state_->free);
  }
  return gone.size();  // freed here, outside the lock
}

size_t BufferPool::free_count() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->free.size();
}

size_t BufferPool::lent_count() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->lent;
}

size_t BufferPool::made_count() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->made;
}

}  // namespace ckpt
