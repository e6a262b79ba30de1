#include "common/dataset/epoch_order.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "common/hash_mix.h"

namespace ckpt {
SamplerShape ShapeOf(const SamplerSpec& s) {
  SamplerShape shape;
  const uint64_t world = s.world == 0 ? 1 : s.world;
  if (s.drop_last) {
    shape.per_rank = s.samples / world;
    shape.dropped = s.samples - shape.per_rank * world;
  } else {
    shape.per_rank = (s.samples + world - 1) / world;
    shape.padded = shape.per_rank * world - s.samples;
  }
  return shape;
}

EpochOrder::EpochOrder(uint64_t size, uint64_t key, bool shuffle)
    : size_(size), shuffle_(shuffle && size > 1) {
  // An even number of bits, so the halves are equal: a domain of 4^k
  // items, the smallest at least `size` (so under 4 times it).
  unsigned bits = 2;
  while (bits < 64 && (uint64_t{1} << bits) < size) bits += 2;
  half_ = bits / 2;
  mask_ = (uint64_t{1} << half_) - 1;
  for (int i = 0; i < 4; ++i) {
    keys_[i] = Mix64(key + static_cast<uint64_t>(i + 1) * kGolden);
  }
}

uint64_t EpochOrder::Permute(uint64_t x) const {
  uint64_t l = x >> half_, r = x & mask_;
  for (const uint64_t k : keys_) {
    const uint64_t t = l ^ (Mix64(r ^ k) & mask_);
    l = r;
    r = t;
  }
  return (l << half_) | r;
}

uint32_t EpochOrder::operator[](uint64_t position) const {
  if (!shuffle_) return static_cast<uint32_t>(position);
  // A bijection of the domain, walked until it lands inside [0, size):
  // a bijection of [0, size) itself.
  uint64_t x = Permute(position);
  while (x >= size_) x = Permute(x);
  return static_cast<uint32_t>(x);
}

EpochOrder SampleOrder(const SamplerSpec& s) {
  return EpochOrder(s.samples,
                    Mix64(s.seed ^ 0x65706f63686f7264ull) + s.epoch * kGolden,
                    s.shuffle);
}

RankOrder::RankOrder(const SamplerSpec& spec, uint32_t rank)
    : order_(SampleOrder(spec)),
      rank_(rank),
      world_(spec.world == 0 ? 1 : spec.world),
      per_rank_(spec.samples == 0 ? 0 : ShapeOf(spec).per_rank) {}

EpochOrder ObjectOrder(uint64_t objects, uint64_t seed, uint64_t epoch,
                       bool shuffle) {
  return SampleOrder(
      {objects, 1, seed ^ 0x6f626a6563747321ull, epoch, shuffle, false});
}

uint32_t ShuffleBuffer::Take() {
  state_ += kGolden;
  const uint64_t j = static_cast<uint64_t>(
      (static_cast<unsigned __int128>(Mix64(state_)) * held_.size()) >> 64);
  const uint32_t out = held_[j];
  held_[j] = held_.back();
  held_.pop_back();
  return out;
}

bool ShuffleBuffer::Add(uint32_t sample, uint32_t* out) {
  held_.push_back(sample);
  if (held_.size() < capacity_) return false;
  *out = Take();
  return true;
}

bool ShuffleBuffer::Drain(uint32_t* out) {
  if (held_.empty()) return false;
  *out = Take();
  return true;
}

absl::Status CheckEveryRankReads(uint64_t samples, uint64_t objects,
                                 uint64_t world, bool iterable, bool drop_last,
                                 const std::string& shown) {
  if (world == 0) world = 1;
  if (iterable) {
    if (objects >= world && samples > 0) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        shown, " holds ", objects, " object(s) of ", samples,
        " sample(s) in all, and iterable access gives each of the ", world,
        " ranks whole objects: ",
        objects < world ? absl::StrCat(world - objects, " rank(s) would read ")
                        : std::string("every rank would read "),
        "nothing this epoch. Expected at least one object per rank (more, "
        "smaller shards: dataset.shard_bytes), fewer ranks (NUM_DEVICES, "
        "NUM_NODES) or dataload.access=map"));
  }
  SamplerSpec split;
  split.samples = samples;
  split.world = static_cast<uint32_t>(std::min<uint64_t>(world, UINT32_MAX));
  split.drop_last = drop_last;
  if (ShapeOf(split).per_rank > 0) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      shown, " holds ", samples, " sample(s) for ", world,
      " ranks: each rank's share of the epoch would be 0 samples",
      drop_last && samples > 0 ? " (dataload.drop_last drops the rest)" : "",
      ". Expected at least one sample per rank: a larger dataset, fewer "
      "ranks (NUM_DEVICES, NUM_NODES)",
      drop_last && samples > 0 ? ", or dataload.drop_last=false" : ""));
}

uint64_t SampleDigest(uint64_t sample) {
  return Mix64(sample * kGolden + 0x6469676573747321ull);
}

uint64_t ChainDigest(uint64_t digest, uint64_t sample) {
  return Mix64(digest ^ SampleDigest(sample));
}

}  // namespace ckpt
