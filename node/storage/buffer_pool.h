// Large transfer buffers (an S3 upload's parts, a GCS upload's chunks, a
// ranged read's slots) reused across a backend's objects, so an object
// takes memory that is already mapped and faulted in rather than a fresh
// mapping each (glibc maps blocks past its mmap threshold apart and gives
// them back at free: every page of each would fault again). Thread-safe.
//
// Sizes are rounded up to a power of two, and a buffer serves requests of
// its own size class only, so a small request never holds a large buffer
// and a buffer given back always fits the next request of its class. What
// it keeps: every buffer given back, until Trim (the node trims the run's
// backends after each phase: StorageSet::TrimBuffers). So a phase keeps,
// of each size class, the most it had lent at once. Requests under
// kPooledFrom are plain allocations.
#ifndef CKPTBENCH_NODE_STORAGE_BUFFER_POOL_H_
#define CKPTBENCH_NODE_STORAGE_BUFFER_POOL_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace ckpt {

class BufferPool {
  struct State;

 public:
  static constexpr size_t kPooledFrom = size_t{1} << 20;

  // A lent buffer (not zeroed); it returns to its pool when destroyed.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& o) noexcept { *this = std::move(o); }
    Lease& operator=(Lease&& o) noexcept;
    ~Lease();
    char* data() const { return data_.get(); }
    size_t capacity() const { return capacity_; }
    explicit operator bool() const { return data_ != nullptr; }

   private:
    friend class BufferPool;
    std::shared_ptr<State> pool_;  // null: not pooled
    std::unique_ptr<char[]> data_;
    size_t capacity_ = 0;
  };

  BufferPool();
  // Copies share the one pool (a move is a copy: no empty pool).
  BufferPool(const BufferPool&) = default;
  BufferPool& operator=(const BufferPool&) = default;

  // A buffer of `size` bytes at least: a free one of its size class, else
  // a new one of the class's size (under kPooledFrom: of `size`, apart).
  Lease Take(size_t size);
  // Frees the buffers not lent now; how many.
  size_t Trim();

  // For tests: buffers free and lent now, and made (pooled sizes) so far.
  size_t free_count() const;
  size_t lent_count() const;
  size_t made_count() const;

 private:
  struct State {
    mutable std::mutex mu;
    // Free buffers, the size class's capacity with each.
    std::vector<std::pair<size_t, std::unique_ptr<char[]>>> free;
    size_t lent = 0;
    size_t made = 0;
    void Give(std::unique_ptr<char[]> data, size_t capacity);
  };
  std::shared_ptr<State> state_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_BUFFER_POOL_H_
