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

// WebDataset's split_by_node then split_by_worker, worked by hand: five
// objects over 2 ranks x 2 workers give rank 0 positions 0, 2, 4 (worker
// 0: the 1st and 3rd of them, worker 1: the 2nd) and rank 1 positions 1,
// 3; three objects leave rank 1's worker 1 idle.
TEST(EpochOrder, ObjectsSplitOverRanksThenWorkersAsWebDatasetDoes) {
  const std::vector<uint32_t> five = {10, 11, 12, 13, 14};
  EXPECT_EQ(WorkerObjects(five, 2, 0, 2, 0), (std::vector<uint32_t>{10, 14}));
  EXPECT_EQ(WorkerObjects(five, 2, 0, 2, 1), (std::vector<uint32_t>{12}));
  EXPECT_EQ(WorkerObjects(five, 2, 1, 2, 0), (std::vector<uint32_t>{11}));
  EXPECT_EQ(WorkerObjects(five, 2, 1, 2, 1), (std::vector<uint32_t>{13}));
  const std::vector<uint32_t> three = {0, 1, 2};
  EXPECT_EQ(WorkerObjects(three, 2, 1, 2, 1), (std::vector<uint32_t>{}));
  // Any counts: every object goes to exactly one (rank, worker).
  for (uint32_t n : {1u, 7u, 24u, 101u}) {
    const std::vector<uint32_t> order = ObjectOrder(n, 9, 1, true);
    std::multiset<uint32_t> seen;
    for (uint32_t r = 0; r < 3; ++r) {
      for (uint32_t w = 0; w < 4; ++w) {
        for (uint32_t o : WorkerObjects(order, 3, r, 4, w)) seen.insert(o);
      }
    }
    EXPECT_EQ(seen.size(), n);
    for (uint32_t o = 0; o < n; ++o) EXPECT_EQ(seen.count(o), 1u) << o;
  }
  EXPECT_NE(ObjectOrder(50, 9, 1, true), ObjectOrder(50, 9, 2, true));
  EXPECT_EQ(ObjectOrder(5, 9, 1, false),
            (std::vector<uint32_t>{0, 1, 2, 3, 4}));
}

// A buffer of 1 keeps the stream's order; a larger one gives every sample
// back once, in another order, at most K - 1 places ahead of where it
// went in (WebDataset's shuffle(K)), and never holds more than K.
TEST(EpochOrder, AShuffleBufferGivesEverySampleBackOnceWithinItsReach) {
  auto run = [](uint64_t k, uint64_t seed) {
    ShuffleBuffer b(k, seed);
    std::vector<uint32_t> out;
    uint32_t x = 0;
    for (uint32_t s = 0; s < 200; ++s) {
      if (b.Add(s, &x)) {
        EXPECT_LE(x, s);
        EXPECT_LE(x, out.size() + k - 1);  // its place: out.size()
        out.push_back(x);
      }
      EXPECT_LE(b.size(), k);
    }
    while (b.Drain(&x)) out.push_back(x);
    return out;
  };
  std::vector<uint32_t> identity(200);
  for (uint32_t i = 0; i < 200; ++i) identity[i] = i;
  EXPECT_EQ(run(1, 5), identity);
  const std::vector<uint32_t> shuffled = run(32, 5);
  EXPECT_NE(shuffled, identity);
  EXPECT_NE(shuffled, run(32, 6));
  EXPECT_EQ(shuffled, run(32, 5));
  std::vector<uint32_t> sorted = shuffled;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, identity);
}

}  // namespace
}  // namespace ckpt
