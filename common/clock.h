// Clock helpers shared by coordinator and node: wall-clock instants in unix
// nanoseconds (for agreeing on a start instant) and monotonic durations
// (for everything that is timed). Stateless; thread-safe.
#ifndef CKPTBENCH_COMMON_CLOCK_H_
#define CKPTBENCH_COMMON_CLOCK_H_

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>

namespace ckpt {

using SteadyClock = std::chrono::steady_clock;

inline int64_t NowUnixNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The current UTC time in strftime `format`.
inline std::string FormatUtcNow(const char* format) {
  std::time_t t = std::time(nullptr);
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), format, &tm);
  return buf;
}

inline double SecondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CLOCK_H_
