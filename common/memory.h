// How much memory this process may still use: the host's MemAvailable
// (/proc/meminfo), lowered to what the cgroup limit (v2 memory.max, or v1
// memory.limit_in_bytes) leaves, since in a container MemAvailable is the
// host's. Thread-safe (reads only).
#ifndef CKPTBENCH_COMMON_MEMORY_H_
#define CKPTBENCH_COMMON_MEMORY_H_

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

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_MEMORY_H_
