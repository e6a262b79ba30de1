// Which samples each rank reads in an epoch, as PyTorch's
// DistributedSampler splits a map-style dataset: the whole dataset in one
// order per (seed, epoch) (shuffle), cut to a multiple of the world size
// (drop_last) or padded to one by repeating its start, then rank r takes
// positions r, r + world, r + 2 world, ... The shuffle is ckptbench's own,
// not torch.randperm's: the same split, not the same order. It is a keyed
// permutation computed per position (a 4-round Feistel network over the
// smallest power of 4 at least the count, cycle-walked into it: under 4
// rounds of walking per position on average), so neither side ever holds
// the epoch's order: a 2^30-sample epoch costs no memory for it. Its name,
// kEpochOrderName, goes into result.json with each epoch. Pure;
// thread-safe.
#ifndef CKPTBENCH_COMMON_DATASET_EPOCH_ORDER_H_
#define CKPTBENCH_COMMON_DATASET_EPOCH_ORDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

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

// The order generator's name (result.json's epochs[].order): "feistel-v1";
// the Fisher-Yates shuffle before it held 4 bytes per sample on each side.
inline constexpr char kEpochOrderName[] = "feistel-v1";

// An epoch's order of `size` items: a permutation of [0, size), the
// identity without shuffle, position by position. Cheap to copy.
class EpochOrder {
 public:
  EpochOrder() = default;
  EpochOrder(uint64_t size, uint64_t key, bool shuffle);
  uint64_t size() const { return size_; }
  // The item at `position` (< size()).
  uint32_t operator[](uint64_t position) const;

 private:
  uint64_t Permute(uint64_t x) const;
  uint64_t size_ = 0;
  bool shuffle_ = false;
  unsigned half_ = 1;
  uint64_t mask_ = 1;
  uint64_t keys_[4] = {};
};

// The epoch's order of the whole dataset (the sampler's, by seed and
// epoch).
EpochOrder SampleOrder(const SamplerSpec& spec);

// Rank `rank`'s samples, in the order it reads them, as it reads them: the
// k-th is the epoch order's position rank + k * world (padding wraps to
// the start). Holds no list.
class RankOrder {
 public:
  RankOrder() = default;
  RankOrder(const SamplerSpec& spec, uint32_t rank);
  uint64_t size() const { return per_rank_; }
  uint32_t operator[](uint64_t k) const {
    return order_[(rank_ + k * world_) % order_.size()];
  }

 private:
  EpochOrder order_;
  uint64_t rank_ = 0, world_ = 1, per_rank_ = 0;
};

// Iterable access, as WebDataset splits a dataset's objects (TAR shards,
// or files of one sample each) with split_by_node, then split_by_worker:
// the epoch's objects in one order per (seed, epoch) (shuffle: another
// stream than the samples'), then rank r takes positions r, r + world,
// ... and its worker w takes positions w, w + workers, ... of those. Counts
// that do not divide give the first ranks, and their first workers, one
// object more; with fewer objects than ranks x workers the last workers
// get none (idle). Each rank then reads a different number of samples.
EpochOrder ObjectOrder(uint64_t objects, uint64_t seed, uint64_t epoch,
                       bool shuffle);
// `order`: an EpochOrder, or any list of objects (size(), operator[]).
template <typename Order>
std::vector<uint32_t> WorkerObjects(const Order& order, uint32_t world,
                                    uint32_t rank, uint32_t workers,
                                    uint32_t worker) {
  const uint64_t ranks = world == 0 ? 1 : world;
  const uint64_t per_rank = workers == 0 ? 1 : workers;
  std::vector<uint32_t> mine;
  // The rank's k-th object is order[rank + k * ranks]; the worker takes
  // k = worker, worker + workers, ...
  for (uint64_t k = worker; rank + k * ranks < order.size(); k += per_rank) {
    mine.push_back(order[rank + k * ranks]);
  }
  return mine;
}

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

// An epoch that would leave a rank nothing to read (and the run call 0
// samples a success): map-style, a share of 0 samples (fewer samples than
// ranks with drop_last, or none at all); iterable, fewer objects than
// ranks (WebDataset's split_by_node gives the last ranks none).
// FailedPrecondition naming the counts and `shown` (the dataset), or OK.
absl::Status CheckEveryRankReads(uint64_t samples, uint64_t objects,
                                 uint64_t world, bool iterable, bool drop_last,
                                 const std::string& shown);

// A sample's share of an order-independent digest of a set of samples
// (their shares summed mod 2^64): equal sums say the same samples were
// read, whatever the order or the rank.
uint64_t SampleDigest(uint64_t sample);
// The order-dependent digest after `sample` was read next.
uint64_t ChainDigest(uint64_t digest, uint64_t sample);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_DATASET_EPOCH_ORDER_H_
