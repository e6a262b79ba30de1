// A ring of block buffers that lets a file's blocks be produced and
// consumed on different threads, in order, with a bounded number in
// flight: a save's generator fills block k while a writer thread writes
// block k-1; a load's reader threads fill blocks k..k+depth-1 while the
// file's thread verifies block k-1.
//
// Block k always lives in slot k % slots. A producer of block k waits
// until the consumer has released block k - slots; the consumer takes
// blocks strictly in order. Producers may run in parallel and finish out
// of order. Stop() wakes everyone and makes every later wait fail, so a
// failure on either side ends the other promptly. Thread-safe.
#ifndef CKPTBENCH_NODE_CHECKPOINT_BLOCK_RING_H_
#define CKPTBENCH_NODE_CHECKPOINT_BLOCK_RING_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/status/status.h"

namespace ckpt {

class BlockRing {
 public:
  // `slots` buffers of `slot_size` bytes each, carved from `base`.
  BlockRing(unsigned char* base, size_t slot_size, size_t slots);

  // Producer: waits until block k may be filled; its buffer, or nullptr
  // once stopped.
  unsigned char* AcquireFree(uint64_t k);
  // Producer: block k holds `len` bytes (or failed with `status`).
  void Publish(uint64_t k, size_t len, absl::Status status = {});

  struct Ready {
    unsigned char* data = nullptr;  // nullptr once stopped
    size_t len = 0;
    absl::Status status;
  };
  // Consumer: waits until block k is published.
  Ready WaitReady(uint64_t k);
  // Consumer: done with block k; its slot may take block k + slots.
  void Release(uint64_t k);

  void Stop();

 private:
  enum class State { kFree, kBusy, kReady };
  struct Slot {
    uint64_t next_block;  // the block this slot takes next
    State state = State::kFree;
    size_t len = 0;
    absl::Status status;
  };
  unsigned char* base_;
  size_t slot_size_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;
  bool stopped_ = false;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_BLOCK_RING_H_
