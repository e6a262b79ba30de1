// Large transfer buffers (an S3 upload's parts, a GCS upload's chunks, a
// ranged read's slots) reused across a backend's objects, so an object
// takes memory that is already mapped and faulted in rather than a fresh
// mapping each (glibc maps blocks past its mmap threshold apart and gives
// them back at free: every page of each would fault again). Thread-safe.
//
// What it keeps: every buffer given back, until Trim (the node trims its
// backends' pools after each phase: storage.h, TrimBuffers). A new one is
// made only when none free fits, so a phase keeps what it had lent at most
// at once: its objects in flight, as BufferPerFile counts them. Requests
// under kPooledFrom are plain allocations.
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
    Lease(Lease&&) noexcept = default;
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

  BufferPool();  // copies share the one pool

  // A buffer of `size` bytes at least: the smallest free one that fits,
  // else a new one of `size`.
  Lease Take(size_t size);
  // Frees the buffers not lent now; how many.
  size_t Trim();

  // For tests: buffers free and lent now, and made (pooled sizes) so far.
  size_t free_count() const;
  size_t lent_count() const;
  size_t made_count() const;

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;
  };
  struct State {
    mutable std::mutex mu;
    std::vector<Block> free;
    size_t lent = 0;
    size_t made = 0;
    void Give(std::unique_ptr<char[]> data, size_t capacity);
  };
  std::shared_ptr<State> state_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_BUFFER_POOL_H_
