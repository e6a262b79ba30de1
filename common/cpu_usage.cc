#include "common/cpu_usage.h"

#include <sched.h>
#include <sys/resource.h>

#include <cstdio>

namespace ckpt {
namespace {
double ToSeconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}
}  // namespace

CpuSample SampleCpu() {
  CpuSample s;
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    s.user_seconds = ToSeconds(ru.ru_utime);
    s.system_seconds = ToSeconds(ru.ru_stime);
  }
  if (FILE* f = std::fopen("/proc/stat", "r")) {
    unsigned long long v[10] = {0};
    if (std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
                    &v[8], &v[9]) >= 8) {
      // user nice system idle iowait irq softirq steal (guest counted in user)
      uint64_t idle = v[3] + v[4];
      uint64_t total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
      s.host_total_ticks = total;
      s.host_busy_ticks = total - idle;
    }
    std::fclose(f);
  }
  return s;
}

CpuDelta CpuBetween(const CpuSample& a, const CpuSample& b) {
  CpuDelta d;
  d.user_seconds = b.user_seconds - a.user_seconds;
  d.system_seconds = b.system_seconds - a.system_seconds;
  uint64_t total = b.host_total_ticks - a.host_total_ticks;
  if (total > 0) {
    d.host_busy = static_cast<double>(b.host_busy_ticks - a.host_busy_ticks) /
                  static_cast<double>(total);
  }
  return d;
}

int UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return 1;
}

}  // namespace ckpt
