#include "node/checkpoint/block_ring.h"

namespace ckpt {

BlockRing::BlockRing(unsigned char* base, size_t slot_size, size_t slots)
    : base_(base), slot_size_(slot_size), slots_(slots) {
  for (size_t i = 0; i < slots; ++i) slots_[i].next_block = i;
}

unsigned char* BlockRing::AcquireFree(uint64_t k) {
  const size_t i = k % slots_.size();
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] {
    return stopped_ ||
           (slots_[i].state == State::kFree && slots_[i].next_block == k);
  });
  if (stopped_) return nullptr;
  slots_[i].state = State::kBusy;
  return base_ + i * slot_size_;
}

void BlockRing::Publish(uint64_t k, size_t len, absl::Status status) {
  const size_t i = k % slots_.size();
  {
    std::lock_guard<std::mutex> lock(mu_);
    slots_[i].state = State::kReady;
    slots_[i].len = len;
    slots_[i].status = std::move(status);
  }
  cv_.notify_all();
}

BlockRing::Ready BlockRing::WaitReady(uint64_t k) {
  const size_t i = k % slots_.size();
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] {
    return stopped_ ||
           (slots_[i].state == State::kReady && slots_[i].next_block == k);
  });
  if (stopped_) return {};
  return {base_ + i * slot_size_, slots_[i].len, slots_[i].status};
}

void BlockRing::Release(uint64_t k) {
  const size_t i = k % slots_.size();
  {
    std::lock_guard<std::mutex> lock(mu_);
    slots_[i].state = State::kFree;
    slots_[i].next_block = k + slots_.size();
    slots_[i].status = absl::OkStatus();
  }
  cv_.notify_all();
}

void BlockRing::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

}  // namespace ckpt
