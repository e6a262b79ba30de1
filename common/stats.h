// Count, mean, sample standard deviation (n - 1), min and max of a list of
// measurements, and its median: the one definition every summary,
// collation and comparison uses. Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_STATS_H_
#define CKPTBENCH_COMMON_STATS_H_

#include <vector>

namespace ckpt {

struct Spread {
  int count = 0;
  double mean = 0, stdev = 0, min = 0, max = 0;  // all 0 when empty
};

// stdev is 0 for fewer than two values.
Spread SpreadOf(const std::vector<double>& values);

// The middle value, or the mean of the two middle ones for an even count;
// 0 when empty.
double MedianOf(std::vector<double> values);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_STATS_H_
