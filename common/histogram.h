// Log-linear latency histogram (16 sub-buckets per power of two, <= 6.25%
// relative error), mergeable by adding counts so percentiles across ranks
// and nodes are computed from merged data, never averaged. Not thread-safe:
// keep one per thread and Merge() afterwards. Buckets are held only up to
// the highest one used: an empty histogram allocates nothing, so a report
// of five operations of which one was used costs one short vector.
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

  Histogram() = default;

  // Holds every bucket now, so Record never allocates: for a histogram
  // recorded into on a timed path (a node's file task).
  void Reserve();
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
  static Histogram FromParts(std::vector<uint64_t> counts, uint64_t count,
                             uint64_t sum, uint64_t min, uint64_t max);

  static int BucketIndex(uint64_t value);
  static uint64_t BucketLow(int index);
  static uint64_t BucketHigh(int index);

 private:
  // Counts of buckets 0..size()-1; the ones above are 0.
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_HISTOGRAM_H_
