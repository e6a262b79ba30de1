// Process CPU time (getrusage) and host CPU busy share (/proc/stat),
// sampled at two instants. Thread-safe (reads only).
#ifndef CKPTBENCH_COMMON_CPU_USAGE_H_
#define CKPTBENCH_COMMON_CPU_USAGE_H_

#include <cstdint>

namespace ckpt {

struct CpuSample {
  double user_seconds = 0;    // this process, all threads
  double system_seconds = 0;  // this process, all threads
  uint64_t host_busy_ticks = 0;
  uint64_t host_total_ticks = 0;
};

struct CpuDelta {
  double user_seconds = 0;
  double system_seconds = 0;
  double host_busy = 0;  // 0..1 of all host CPUs
};

CpuSample SampleCpu();
CpuDelta CpuBetween(const CpuSample& a, const CpuSample& b);

// The CPUs this process may run on: its affinity mask (a container's
// cpuset), or its container's CPU quota (cgroup cpu.max) when smaller,
// rounded up; at least 1.
int UsableCpus();

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CPU_USAGE_H_
