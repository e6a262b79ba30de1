// How much memory this process may still use: the host's MemAvailable
// (/proc/meminfo), lowered to what the cgroup limit (v2 memory.max, or v1
// memory.limit_in_bytes) leaves, since in a container MemAvailable is the
// host's. Thread-safe (reads only).
#ifndef CKPTBENCH_COMMON_MEMORY_H_
#define CKPTBENCH_COMMON_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace ckpt {

struct MemoryBudget {
  uint64_t available_bytes = 0;  // 0 = unknown
  std::string source;            // "MemAvailable", "cgroup memory.max", ...
};

MemoryBudget AvailableMemory();

// What a plan may hold of the available memory: 80% of it (0: unknown), the
// rest left to the system and the process's other needs.
inline uint64_t UsableBytes(const MemoryBudget& budget) {
  return budget.available_bytes / 5 * 4;
}

// This process's peak resident set (VmHWM in /proc/self/status), 0 if
// unknown.
uint64_t PeakRssBytes();
// Starts the peak over from the current resident set (writing "5" to
// /proc/self/clear_refs, Linux 4.0 and later); false where that is refused,
// and the peak then stays the process's since it started.
bool ResetPeakRss();

// Makes glibc's malloc map every block of kLargeAllocationBytes or more on
// its own and unmap it when freed, instead of its default, which raises
// that threshold to the largest block freed so far: after the first large
// message (a 100,000-tensor prepare, a 19 MB .metadata) every later one
// was carved from the heap and left its pages resident, fragmented, once
// freed (a node's peak at 100,000 tensors: 85.6 MiB, 68.9 with this;
// docs/performance.md "Memory"). What is made per object at that size
// (the object stores' upload and read buffers) comes from a pool instead
// (node/storage/buffer_pool.h), or each would be mapped and faulted in
// afresh. Left alone where GLIBC_TUNABLES sets glibc.malloc.mmap_threshold
// (the user's choice wins). Call once, early.
inline constexpr size_t kLargeAllocationBytes = size_t{4} << 20;
void MapLargeAllocationsApart();

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_MEMORY_H_
