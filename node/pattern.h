// Deterministic shard bytes: the byte at offset o of a file is a function
// of (seed, step, rank, file index, o) only, so any reader can regenerate
// and verify content without a stored copy, starting at any offset.
//
// How (generator "pool-xor-v1"): a fixed 1 MiB pool of pseudo-random bytes
// is made once per process. Each 4 KiB-aligned chunk c of a file is one
// 4 KiB slice of that pool, chosen by a hash of (stream key, c), XORed
// with two 64-bit stamps from the same hash (even words with one, odd
// words with the other). So a chunk costs two hashes plus a 4 KiB
// XOR-copy (tens of GiB/s), two chunks are equal only if their 128-bit
// stamps are, and no 4 KiB window repeats within gzip's or zstd's reach.
// Stateless; thread-safe.
#ifndef CKPTBENCH_NODE_PATTERN_H_
#define CKPTBENCH_NODE_PATTERN_H_

#include <cstddef>
#include <cstdint>

#include "common/step_layout.h"

namespace ckpt {

// kPatternName (common/step_layout.h) names this generator.

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
