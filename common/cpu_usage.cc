#include "common/cpu_usage.h"

#include <sched.h>
#include <sys/resource.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

namespace {

// CPUs in this process's affinity mask, with a set sized for any number of
// CPUs (a fixed cpu_set_t fails past 1024); 0 if unknown.
int AffinityCpus() {
  for (int n = 1024; n <= (1 << 16); n *= 2) {
    cpu_set_t* set = CPU_ALLOC(n);
    if (set == nullptr) return 0;
    const size_t size = CPU_ALLOC_SIZE(n);
    CPU_ZERO_S(size, set);
    const bool ok = sched_getaffinity(0, size, set) == 0;
    const int err = errno;
    const int count = ok ? CPU_COUNT_S(size, set) : 0;
    CPU_FREE(set);
    if (ok) return count;
    if (err != EINVAL) return 0;
  }
  return 0;
}

// The CPU quota of the cgroup this process sees at /sys/fs/cgroup (a
// container's own: a Kubernetes CPU limit), in CPUs rounded up; 0 if none.
// cgroup v2 cpu.max ("max PERIOD" or "QUOTA PERIOD"), else v1's
// cpu.cfs_quota_us / cpu.cfs_period_us.
int QuotaCpus() {
  double quota = 0, period = 0;
  if (std::FILE* f = std::fopen("/sys/fs/cgroup/cpu.max", "r")) {
    char q[32] = {0};
    double p = 0;
    if (std::fscanf(f, "%31s %lf", q, &p) == 2 && std::strcmp(q, "max") != 0) {
      quota = std::atof(q);
      period = p;
    }
    std::fclose(f);
  } else if (std::FILE* fq =
                 std::fopen("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "r")) {
    if (std::fscanf(fq, "%lf", &quota) != 1) quota = 0;
    std::fclose(fq);
    if (std::FILE* fp =
            std::fopen("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "r")) {
      if (std::fscanf(fp, "%lf", &period) != 1) period = 0;
      std::fclose(fp);
    }
  }
  if (quota <= 0 || period <= 0) return 0;
  return static_cast<int>(std::ceil(quota / period));
}

}  // namespace

int UsableCpus() {
  int n = AffinityCpus();
  const int quota = QuotaCpus();
  if (quota > 0 && (n <= 0 || quota < n)) n = quota;
  return n > 0 ? n : 1;
}

}  // namespace ckpt
