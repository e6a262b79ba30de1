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
