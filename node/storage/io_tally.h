// Object-store requests counted per file, beside the process-wide counts
// (ObjectStoreCounters, http_client.h): a file's thread makes its tally
// current (ScopedIoTally), every request sent while it is current is
// counted there, and the object-store readers and uploaders carry their
// creator's tally to the worker threads that send for them.
#ifndef CKPTBENCH_NODE_STORAGE_IO_TALLY_H_
#define CKPTBENCH_NODE_STORAGE_IO_TALLY_H_

#include <atomic>
#include <cstdint>

namespace ckpt {

struct IoTally {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> throttles{0};
  // Counted there too (an object's tally inside its reader's rank's); set
  // before the tally is made current, and outliving it.
  IoTally* parent = nullptr;
};

// A request sent, a retry, a throttle: counted on `tally` (may be null)
// and on each tally above it.
inline void TallyRequest(IoTally* tally) {
  for (; tally != nullptr; tally = tally->parent) tally->requests++;
}
inline void TallyRetry(IoTally* tally) {
  for (; tally != nullptr; tally = tally->parent) tally->retries++;
}
inline void TallyThrottle(IoTally* tally) {
  for (; tally != nullptr; tally = tally->parent) tally->throttles++;
}

// The calling thread's tally; nullptr when none is current.
inline IoTally*& CurrentIoTallySlot() {
  thread_local IoTally* current = nullptr;
  return current;
}
inline IoTally* CurrentIoTally() { return CurrentIoTallySlot(); }

// Makes `tally` (may be nullptr) the thread's current one for its scope.
class ScopedIoTally {
 public:
  explicit ScopedIoTally(IoTally* tally) : prev_(CurrentIoTallySlot()) {
    CurrentIoTallySlot() = tally;
  }
  ~ScopedIoTally() { CurrentIoTallySlot() = prev_; }
  ScopedIoTally(const ScopedIoTally&) = delete;
  ScopedIoTally& operator=(const ScopedIoTally&) = delete;

 private:
  IoTally* prev_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_IO_TALLY_H_
