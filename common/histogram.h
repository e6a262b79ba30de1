// Log-linear latency histogram (16 sub-buckets per power of two, <= 6.25%
// relative error), mergeable by adding counts so percentiles across ranks
// and nodes are computed from merged data, never averaged. Not thread-safe:
// keep one per thread and Merge() afterwards.
#ifndef CKPTBENCH_COMMON_HISTOGRAM_H_
#define CKPTBENCH_COMMON_HISTOGRAM_H_

#include <cstdint>
#include <vector>

namespace ckpt {

class Histogram {
 public:
  static constexpr int kSubBucketBits = 4;
  static constexpr int kSubBuckets = 1 << kSubBucketBits;
  static constexpr int kNumBuckets = (64 - kSubBucketBits + 1) * kSubBuckets;

  Histogram() : counts_(kNumBuckets, 0) {}

  void Record(uint64_t value_ns);
  void Merge(const Histogram& other);

  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double Mean() const;
  // Value at quantile q in [0, 1]: the midpoint of the bucket holding the
  // q-th value, clamped to [min, max]. 0 when empty.
  uint64_t Percentile(double q) const;

  // Raw access for serialization (counts trimmed of trailing zeros).
  std::vector<uint64_t> TrimmedCounts() const;
  static Histogram FromParts(const std::vector<uint64_t>& counts,
                             uint64_t count, uint64_t sum, uint64_t min,
                             uint64_t max);

  static int BucketIndex(uint64_t value);
  static uint64_t BucketLow(int index);
  static uint64_t BucketHigh(int index);

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_HISTOGRAM_H_
