#include "common/epoch_order.h"

#include <numeric>

#include "common/hash_mix.h"

namespace ckpt {
namespace {}  // namespace

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

std::vector<uint32_t> EpochPermutation(const SamplerSpec& s) {
  std::vector<uint32_t> p(s.samples);
  std::iota(p.begin(), p.end(), 0u);
  if (!s.shuffle) return p;
  uint64_t state = Mix64(s.seed ^ 0x65706f63686f7264ull) + s.epoch * kGolden;
  for (uint64_t i = s.samples; i > 1; --i) {
    state += kGolden;
    // Lemire's multiply-shift: j in [0, i), the bias below 2^-32 here.
    const uint64_t j = static_cast<uint64_t>(
        (static_cast<unsigned __int128>(Mix64(state)) * i) >> 64);
    std::swap(p[i - 1], p[j]);
  }
  return p;
}

std::vector<uint32_t> ObjectOrder(uint64_t objects, uint64_t seed,
                                  uint64_t epoch, bool shuffle) {
  return EpochPermutation(
      {objects, 1, seed ^ 0x6f626a6563747321ull, epoch, shuffle, false});
}

std::vector<uint32_t> WorkerObjects(const std::vector<uint32_t>& order,
                                    uint32_t world, uint32_t rank,
                                    uint32_t workers, uint32_t worker) {
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

std::vector<uint32_t> RankSamples(const std::vector<uint32_t>& p,
                                  const SamplerSpec& s, uint32_t rank) {
  const SamplerShape shape = ShapeOf(s);
  std::vector<uint32_t> mine;
  mine.reserve(shape.per_rank);
  const uint64_t world = s.world == 0 ? 1 : s.world;
  for (uint64_t k = 0; k < shape.per_rank; ++k) {
    const uint64_t pos = rank + k * world;  // padding wraps to the start
    if (p.empty()) break;
    mine.push_back(p[pos % p.size()]);
  }
  return mine;
}

uint64_t SampleDigest(uint64_t sample) {
  return Mix64(sample * kGolden + 0x6469676573747321ull);
}

uint64_t ChainDigest(uint64_t digest, uint64_t sample) {
  return Mix64(digest ^ SampleDigest(sample));
}

}  // namespace ckpt
