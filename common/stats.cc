#include "common/stats.h"

#include <algorithm>
#include <cmath>

namespace ckpt {

Spread SpreadOf(const std::vector<double>& v) {
  Spread s;
  s.count = static_cast<int>(v.size());
  if (v.empty()) return s;
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stdev =
      v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  return s;
}

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace ckpt
