// Which samples each rank reads in an epoch, as PyTorch's
// DistributedSampler splits a map-style dataset: the whole dataset in one
// order per (seed, epoch) (shuffle), cut to a multiple of the world size
// (drop_last) or padded to one by repeating its start, then rank r takes
// positions r, r + world, r + 2 world, ... The shuffle is ckptbench's own
// (Fisher-Yates over splitmix64), not torch.randperm's: the same split,
// not the same order. Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_EPOCH_ORDER_H_
#define CKPTBENCH_COMMON_EPOCH_ORDER_H_

#include <cstdint>
#include <vector>

namespace ckpt {

struct SamplerSpec {
  uint64_t samples = 0;  // at most 2^32
  uint32_t world = 1;
  uint64_t seed = 0;
  uint64_t epoch = 0;  // 0-based
  bool shuffle = true;
  bool drop_last = true;
};

struct SamplerShape {
  uint64_t per_rank = 0;  // samples each rank reads
  uint64_t dropped = 0;   // drop_last: samples no rank reads this epoch
  uint64_t padded = 0;    // otherwise: samples read twice to even it out
};
SamplerShape ShapeOf(const SamplerSpec& spec);

// The epoch's order of the whole dataset: a permutation of [0, samples)
// (identity without shuffle). 4 bytes per sample.
std::vector<uint32_t> EpochPermutation(const SamplerSpec& spec);

// Rank `rank`'s samples, in the order it reads them.
std::vector<uint32_t> RankSamples(const std::vector<uint32_t>& permutation,
                                  const SamplerSpec& spec, uint32_t rank);

// A sample's share of an order-independent digest of a set of samples
// (their shares summed mod 2^64): equal sums say the same samples were
// read, whatever the order or the rank.
uint64_t SampleDigest(uint64_t sample);
// The order-dependent digest after `sample` was read next.
uint64_t ChainDigest(uint64_t digest, uint64_t sample);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_EPOCH_ORDER_H_
