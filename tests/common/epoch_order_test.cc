#include "common/epoch_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace ckpt {
namespace {

TEST(EpochOrder, APermutationThatChangesWithTheEpochAndRepeatsWithTheSeed) {
  SamplerSpec s{1000, 4, 7, 0, true, true};
  std::vector<uint32_t> a = EpochPermutation(s);
  std::vector<uint32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(sorted[i], i);
  EXPECT_EQ(EpochPermutation(s), a);
  s.epoch = 1;
  EXPECT_NE(EpochPermutation(s), a);
  s.shuffle = false;
  EXPECT_EQ(EpochPermutation(s), sorted);
}

// DistributedSampler: rank r takes positions r, r + world, ...; with
// drop_last the tail that does not divide is left out, without it the
// start is repeated to even the shares.
TEST(EpochOrder, RanksSplitAsDistributedSamplerDoes) {
  SamplerSpec s{10, 4, 1, 0, false, true};
  EXPECT_EQ(ShapeOf(s).per_rank, 2u);
  EXPECT_EQ(ShapeOf(s).dropped, 2u);
  const std::vector<uint32_t> p = EpochPermutation(s);
  EXPECT_EQ(RankSamples(p, s, 0), (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(RankSamples(p, s, 3), (std::vector<uint32_t>{3, 7}));
  s.drop_last = false;
  EXPECT_EQ(ShapeOf(s).per_rank, 3u);
  EXPECT_EQ(ShapeOf(s).padded, 2u);
  EXPECT_EQ(RankSamples(p, s, 1), (std::vector<uint32_t>{1, 5, 9}));
  EXPECT_EQ(RankSamples(p, s, 2), (std::vector<uint32_t>{2, 6, 0}));
  EXPECT_EQ(RankSamples(p, s, 3), (std::vector<uint32_t>{3, 7, 1}));
}

TEST(EpochOrder, ShuffledSharesAreDisjointAndCoverTheDataset) {
  SamplerSpec s{1200, 6, 3, 2, true, true};
  const std::vector<uint32_t> p = EpochPermutation(s);
  std::set<uint32_t> all;
  uint64_t digest = 0;
  for (uint32_t r = 0; r < 6; ++r) {
    for (uint32_t x : RankSamples(p, s, r)) {
      EXPECT_TRUE(all.insert(x).second) << x;
      digest += SampleDigest(x);
    }
  }
  EXPECT_EQ(all.size(), 1200u);
  uint64_t expect = 0;
  for (uint32_t i = 0; i < 1200; ++i) expect += SampleDigest(i);
  EXPECT_EQ(digest, expect);
  EXPECT_NE(digest - SampleDigest(5) + SampleDigest(1200), expect);
  EXPECT_NE(ChainDigest(ChainDigest(0, 1), 2),
            ChainDigest(ChainDigest(0, 2), 1));
}

}  // namespace
}  // namespace ckpt
