#include "common/dataset/epoch_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace ckpt {
namespace {

// An order, or a rank's share of it, as a list.
template <typename Order>
std::vector<uint32_t> All(const Order& order) {
  std::vector<uint32_t> out;
  for (uint64_t k = 0; k < order.size(); ++k) out.push_back(order[k]);
  return out;
}

std::vector<uint32_t> RankSamples(const SamplerSpec& s, uint32_t rank) {
  return All(RankOrder(s, rank));
}

TEST(EpochOrder, APermutationThatChangesWithTheEpochAndRepeatsWithTheSeed) {
  SamplerSpec s{1000, 4, 7, 0, true, true};
  std::vector<uint32_t> a = All(SampleOrder(s));
  std::vector<uint32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(sorted[i], i);
  EXPECT_NE(a, sorted);
  EXPECT_EQ(All(SampleOrder(s)), a);
  s.epoch = 1;
  EXPECT_NE(All(SampleOrder(s)), a);
  s.seed = 8;
  EXPECT_NE(All(SampleOrder(s)), a);
  s.shuffle = false;
  EXPECT_EQ(All(SampleOrder(s)), sorted);
}

// The order is computed position by position (no list held), for any
// count: every count from 1 to 300 and a few awkward ones just past a
// power of 4 give a permutation, and 2^30 positions cost no memory.
TEST(EpochOrder, EveryCountGivesAPermutationComputedPerPosition) {
  std::vector<uint64_t> counts;
  for (uint64_t n = 1; n <= 300; ++n) counts.push_back(n);
  for (uint64_t n : {1025u, 4097u, 16385u, 65537u}) counts.push_back(n);
  for (uint64_t n : counts) {
    const std::vector<uint32_t> a = All(EpochOrder(n, n * 31, true));
    std::vector<bool> seen(n, false);
    for (uint32_t x : a) {
      ASSERT_LT(x, n);
      ASSERT_FALSE(seen[x]) << "count " << n << " repeats " << x;
      seen[x] = true;
    }
  }
  // The key's maximum: any position answers at once, inside the range.
  const EpochOrder big(1ull << 30, 5, true);
  for (uint64_t p : {0ull, 1ull, 123456789ull, (1ull << 30) - 1}) {
    EXPECT_LT(big[p], 1ull << 30);
  }
  EXPECT_NE(big[0], big[1]);
}

// DistributedSampler: rank r takes positions r, r + world, ...; with
// drop_last the tail that does not divide is left out, without it the
// start is repeated to even the shares.
TEST(EpochOrder, RanksSplitAsDistributedSamplerDoes) {
  SamplerSpec s{10, 4, 1, 0, false, true};
  EXPECT_EQ(ShapeOf(s).per_rank, 2u);
  EXPECT_EQ(ShapeOf(s).dropped, 2u);
  EXPECT_EQ(RankSamples(s, 0), (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(RankSamples(s, 3), (std::vector<uint32_t>{3, 7}));
  s.drop_last = false;
  EXPECT_EQ(ShapeOf(s).per_rank, 3u);
  EXPECT_EQ(ShapeOf(s).padded, 2u);
  EXPECT_EQ(RankSamples(s, 1), (std::vector<uint32_t>{1, 5, 9}));
  EXPECT_EQ(RankSamples(s, 2), (std::vector<uint32_t>{2, 6, 0}));
  EXPECT_EQ(RankSamples(s, 3), (std::vector<uint32_t>{3, 7, 1}));
}

TEST(EpochOrder, ShuffledSharesAreDisjointAndCoverTheDataset) {
  SamplerSpec s{1200, 6, 3, 2, true, true};
  std::set<uint32_t> all;
  uint64_t digest = 0;
  for (uint32_t r = 0; r < 6; ++r) {
    for (uint32_t x : RankSamples(s, r)) {
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
    const EpochOrder order = ObjectOrder(n, 9, 1, true);
    std::multiset<uint32_t> seen;
    for (uint32_t r = 0; r < 3; ++r) {
      for (uint32_t w = 0; w < 4; ++w) {
        for (uint32_t o : WorkerObjects(order, 3, r, 4, w)) seen.insert(o);
      }
    }
    EXPECT_EQ(seen.size(), n);
    for (uint32_t o = 0; o < n; ++o) EXPECT_EQ(seen.count(o), 1u) << o;
  }
  EXPECT_NE(All(ObjectOrder(50, 9, 1, true)), All(ObjectOrder(50, 9, 2, true)));
  EXPECT_EQ(All(ObjectOrder(5, 9, 1, false)),
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
