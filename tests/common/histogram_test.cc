#include "common/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace ckpt {
namespace {

TEST(Histogram, BucketsCoverValuesWithBoundedError) {
  for (uint64_t v : {0ull, 1ull, 15ull, 16ull, 17ull, 1000ull, 123456789ull,
                     (1ull << 40) + 12345, ~0ull}) {
    int i = Histogram::BucketIndex(v);
    ASSERT_GE(i, 0);
    ASSERT_LT(i, Histogram::kNumBuckets);
    EXPECT_LE(Histogram::BucketLow(i), v);
    EXPECT_GE(Histogram::BucketHigh(i), v);
    double width =
        static_cast<double>(Histogram::BucketHigh(i) - Histogram::BucketLow(i));
    EXPECT_LE(width, std::max(1.0, static_cast<double>(v) / 16.0));
  }
}

TEST(Histogram, PercentilesMatchExactWithinError) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(13, 1.2);  // ~0.4 ms median
  std::vector<uint64_t> values;
  Histogram h;
  for (int i = 0; i < 20000; ++i) {
    uint64_t v = static_cast<uint64_t>(dist(rng));
    values.push_back(v);
    h.Record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99}) {
    double exact =
        static_cast<double>(values[static_cast<size_t>(q * values.size()) - 1]);
    EXPECT_NEAR(static_cast<double>(h.Percentile(q)), exact, exact * 0.07) << q;
  }
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.min(), values.front());
  EXPECT_EQ(h.Percentile(1.0), values.back());
}

TEST(Histogram, MergeEqualsRecordingEverything) {
  Histogram a, b, all;
  for (uint64_t v = 1; v < 5000; v += 3) {
    (v % 2 ? a : b).Record(v * 1000);
    all.Record(v * 1000);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.sum(), all.sum());
  for (double q : {0.1, 0.5, 0.99})
    EXPECT_EQ(a.Percentile(q), all.Percentile(q));
  Histogram round = Histogram::FromParts(a.TrimmedCounts(), a.count(), a.sum(),
                                         a.min(), a.max());
  EXPECT_EQ(round.Percentile(0.9), a.Percentile(0.9));
}

// Buckets are held up to the highest used: merging histograms of different
// extents, either way round and with an empty one, keeps every count.
TEST(Histogram, MergesAcrossExtentsAndEmpty) {
  Histogram small, large, empty, all;
  for (uint64_t v : {3u, 40u, 900u}) {
    small.Record(v);
    all.Record(v);
  }
  for (uint64_t v : {7'000'000u, 2'000'000'000u}) {
    large.Record(v);
    all.Record(v);
  }
  Histogram reserved;  // every bucket held from the start: the same
  reserved.Reserve();
  reserved.Merge(small);
  reserved.Merge(large);
  EXPECT_EQ(reserved.TrimmedCounts(), all.TrimmedCounts());
  EXPECT_EQ(reserved.Percentile(0.5), all.Percentile(0.5));
  Histogram a = small, b = large;
  a.Merge(large);
  b.Merge(small);
  a.Merge(empty);
  empty.Merge(b);
  for (const Histogram* h : {&a, &b, &empty}) {
    EXPECT_EQ(h->count(), 5u);
    EXPECT_EQ(h->TrimmedCounts(), all.TrimmedCounts());
    EXPECT_EQ(h->Percentile(0.5), all.Percentile(0.5));
    EXPECT_EQ(h->Percentile(1.0), all.Percentile(1.0));
    EXPECT_EQ(h->max(), 2'000'000'000u);
    EXPECT_EQ(h->min(), 3u);
  }
  // Parts sent with trailing zero buckets read back as the same histogram.
  std::vector<uint64_t> padded = all.TrimmedCounts();
  padded.resize(padded.size() + 50, 0);
  Histogram back =
      Histogram::FromParts(padded, all.count(), all.sum(), 3, 2'000'000'000);
  EXPECT_EQ(back.TrimmedCounts(), all.TrimmedCounts());
  EXPECT_EQ(back.Percentile(0.9), all.Percentile(0.9));
}

TEST(Histogram, EmptyIsZero) {
  Histogram h;
  EXPECT_EQ(h.Percentile(0.5), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.Mean(), 0);
  EXPECT_TRUE(h.TrimmedCounts().empty());
}

}  // namespace
}  // namespace ckpt
