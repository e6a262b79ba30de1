#include "common/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

namespace ckpt {

int Histogram::BucketIndex(uint64_t value) {
  if (value < kSubBuckets) return static_cast<int>(value);
  int e = 63 - std::countl_zero(value);  // >= kSubBucketBits
  int shift = e - kSubBucketBits;
  int sub = static_cast<int>((value >> shift) & (kSubBuckets - 1));
  return (shift + 1) * kSubBuckets + sub;
}

uint64_t Histogram::BucketLow(int index) {
  if (index < kSubBuckets) return static_cast<uint64_t>(index);
  int shift = index / kSubBuckets - 1;
  uint64_t sub = static_cast<uint64_t>(index % kSubBuckets);
  return (static_cast<uint64_t>(kSubBuckets) + sub) << shift;
}

uint64_t Histogram::BucketHigh(int index) {
  if (index < kSubBuckets) return static_cast<uint64_t>(index);
  int shift = index / kSubBuckets - 1;
  return BucketLow(index) + ((uint64_t{1} << shift) - 1);
}

void Histogram::Reserve() { counts_.resize(kNumBuckets, 0); }

void Histogram::Record(uint64_t value_ns) {
  const size_t i = static_cast<size_t>(BucketIndex(value_ns));
  if (i >= counts_.size()) counts_.resize(i + 1, 0);
  ++counts_[i];
  ++count_;
  sum_ += value_ns;
  min_ = std::min(min_, value_ns);
  max_ = std::max(max_, value_ns);
}

void Histogram::Merge(const Histogram& other) {
  if (other.counts_.size() > counts_.size()) {
    counts_.resize(other.counts_.size(), 0);
  }
  for (size_t i = 0; i < other.counts_.size(); ++i) {
    counts_[i] += other.counts_[i];
  }
  count_ += other.count_;
  sum_ += other.sum_;
  if (other.count_) {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
}

double Histogram::Mean() const {
  return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0;
}

uint64_t Histogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // Rank of the wanted value, 1-based (nearest-rank method).
  uint64_t rank =
      static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const int index = static_cast<int>(i);
      uint64_t lo = BucketLow(index), hi = BucketHigh(index);
      uint64_t mid = lo + (hi - lo) / 2;
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

std::vector<uint64_t> Histogram::TrimmedCounts() const {
  size_t n = counts_.size();
  while (n > 0 && counts_[n - 1] == 0) --n;
  return std::vector<uint64_t>(counts_.begin(), counts_.begin() + n);
}

Histogram Histogram::FromParts(std::vector<uint64_t> counts, uint64_t count,
                               uint64_t sum, uint64_t min, uint64_t max) {
  Histogram h;
  size_t n = std::min(counts.size(), static_cast<size_t>(kNumBuckets));
  while (n > 0 && counts[n - 1] == 0) --n;
  counts.resize(n);
  h.counts_ = std::move(counts);
  h.count_ = count;
  h.sum_ = sum;
  h.min_ = count ? min : UINT64_MAX;
  h.max_ = max;
  return h;
}

}  // namespace ckpt
