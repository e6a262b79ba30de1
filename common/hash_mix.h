// splitmix64's finalizer and the golden-ratio increment: the one mixing
// function the deterministic choices derive from (dataset sizes and
// prefixes, an epoch's order). Pure.
#ifndef CKPTBENCH_COMMON_HASH_MIX_H_
#define CKPTBENCH_COMMON_HASH_MIX_H_

#include <cstdint>

namespace ckpt {

inline constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ull;

inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_HASH_MIX_H_
