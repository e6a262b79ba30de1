// Deterministic shard bytes: the byte at offset o of a file is a function
// of (seed, step, rank, file index, o) only, so any reader can regenerate
// and verify content without a stored copy, starting at any offset.
// Stateless; thread-safe.
#ifndef CKPTBENCH_NODE_PATTERN_H_
#define CKPTBENCH_NODE_PATTERN_H_

#include <cstddef>
#include <cstdint>

namespace ckpt {

struct PatternKey {
  uint64_t seed = 0;
  uint64_t step = 0;
  uint32_t rank = 0;
  uint32_t file = 0;
};

// Mixes the key into the 64-bit stream key.
uint64_t PatternStreamKey(const PatternKey& key);

// Fills buf[0, len) with the bytes at file offsets [offset, offset + len).
void FillPattern(uint64_t stream_key, uint64_t offset, void* buf, size_t len);

// Offset (relative to `offset`) of the first byte of buf that differs from
// the pattern, or len if none does.
size_t FirstPatternMismatch(uint64_t stream_key, uint64_t offset,
                            const void* buf, size_t len);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_PATTERN_H_
