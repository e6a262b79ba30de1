#include "node/round/phase_start.h"

#include <time.h>

#include <cerrno>

#include "common/clock.h"

namespace ckpt {
namespace {

// The instant comes from the coordinator: hostile until checked. The wait
// is bounded (an instant far ahead would hold the node, one at either end
// of int64 would overflow) to kMaxStartWaitNs ahead and as far back as now.
constexpr int64_t kMaxStartWaitNs = 600LL * 1'000'000'000;

// `unix_ns` (this node's wall clock) on CLOCK_MONOTONIC, converted now.
int64_t MonotonicNsOf(int64_t unix_ns) {
  timespec mono_now;
  clock_gettime(CLOCK_MONOTONIC, &mono_now);
  const int64_t mono_now_ns =
      static_cast<int64_t>(mono_now.tv_sec) * 1'000'000'000 + mono_now.tv_nsec;
  int64_t ahead = 0;
  if (__builtin_sub_overflow(unix_ns, NowUnixNs(), &ahead)) {
    ahead = unix_ns < 0 ? -mono_now_ns : kMaxStartWaitNs;
  }
  if (ahead > kMaxStartWaitNs) ahead = kMaxStartWaitNs;
  if (ahead < -mono_now_ns) ahead = -mono_now_ns;
  return mono_now_ns + ahead;
}

}  // namespace

double SleepUntilStart(int64_t start_at_unix_ns) {
  const int64_t target_ns = MonotonicNsOf(start_at_unix_ns);
  timespec at{static_cast<time_t>(target_ns / 1'000'000'000),
              static_cast<long>(target_ns % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) ==
         EINTR) {
  }
  timespec started;
  clock_gettime(CLOCK_MONOTONIC, &started);
  return static_cast<double>(static_cast<int64_t>(started.tv_sec) *
                                 1'000'000'000 +
                             started.tv_nsec - target_ns) /
         1e9;
}

}  // namespace ckpt
