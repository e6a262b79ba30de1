// Which samples each rank reads in an epoch, as PyTorch's
// DistributedSampler splits a map-style dataset: the whole dataset in one
// order per (seed, epoch) (shuffle), cut to a multiple of the world size
// (drop_last) or padded to one by repeating its start, then rank r takes
// positions r, r + world, r + 2 world, ... The shuffle is ckptbench's own
// (Fisher-Yates over splitmix64), not torch.randperm's: the same split,
// not the same order. Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_EPOCH_ORDER_H_
#define CKPTBENCH_COMMON_EPOCH_ORDER_H_

#include <cstddef>
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

// Iterable access, as WebDataset splits a dataset's objects (TAR shards,
// or files of one sample each) with split_by_node, then split_by_worker:
// the epoch's objects in one order per (seed, epoch) (shuffle: another
// stream than the samples'), then rank r takes positions r, r + world,
// ... and its worker w takes positions w, w + workers, ... of those. Counts
// that do not divide give the first ranks, and their first workers, one
// object more; with fewer objects than ranks x workers the last workers
// get none (idle). Each rank then reads a different number of samples.
std::vector<uint32_t> ObjectOrder(uint64_t objects, uint64_t seed,
                                  uint64_t epoch, bool shuffle);
std::vector<uint32_t> WorkerObjects(const std::vector<uint32_t>& order,
                                    uint32_t world, uint32_t rank,
                                    uint32_t workers, uint32_t worker);

inline constexpr uint64_t kMaxShuffleBuffer = 1u << 24;

// WebDataset's shuffle(K) over one worker's stream of samples: each
// sample goes into a buffer; once it holds K, each addition gives back one
// sample drawn at random from it; at the end of the stream the rest come
// out in random order. K = 1 keeps the stream's order. Holds sample
// numbers (4 bytes each), not their bytes. Not thread-safe.
class ShuffleBuffer {
 public:
  ShuffleBuffer(uint64_t capacity, uint64_t seed)
      : capacity_(capacity < 1 ? 1 : capacity), state_(seed) {}
  // Adds `sample`; true with *out set when the buffer gives one back.
  bool Add(uint32_t sample, uint32_t* out);
  // The end of the stream: one of the rest, at random; false when empty.
  bool Drain(uint32_t* out);
  size_t size() const { return held_.size(); }

 private:
  uint32_t Take();
  const uint64_t capacity_;
  uint64_t state_;
  std::vector<uint32_t> held_;
};

// A sample's share of an order-independent digest of a set of samples
// (their shares summed mod 2^64): equal sums say the same samples were
// read, whatever the order or the rank.
uint64_t SampleDigest(uint64_t sample);
// The order-dependent digest after `sample` was read next.
uint64_t ChainDigest(uint64_t digest, uint64_t sample);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_EPOCH_ORDER_H_
