#include "node/pattern.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "common/hash_mix.h"

namespace ckpt {
namespace {

constexpr size_t kChunk = 4096;
constexpr size_t kChunkWords = kChunk / 8;
constexpr size_t kPoolChunks = 256;  // 1 MiB: fits in L2 beside the output

struct Pool {
  std::vector<uint64_t> words;
  Pool() : words(kPoolChunks * kChunkWords) {
    for (size_t i = 0; i < words.size(); ++i) {
      words[i] = Mix64(0x706f6f6c786f7231ull + i * kGolden);
    }
  }
};

const uint64_t* PoolWords() {
  static const Pool pool;  // thread-safe one-time init
  return pool.words.data();
}

// Where chunk c of a stream comes from and what it is XORed with.
struct ChunkRecipe {
  const uint64_t* src;  // kChunkWords pool words
  uint64_t even, odd;   // stamps for even and odd words
};

inline ChunkRecipe Recipe(const uint64_t* pool, uint64_t key, uint64_t c) {
  uint64_t a = Mix64(key + c * kGolden);
  uint64_t b = Mix64(a ^ 0x5851f42d4c957f2dull);
  return {pool + (b >> 56) % kPoolChunks * kChunkWords, a, b};
}

// A whole, aligned chunk: the hot loop (vectorized by the compiler).
inline void FillChunk(const ChunkRecipe& r, unsigned char* out) {
  uint64_t tmp[kChunkWords];
  for (size_t i = 0; i < kChunkWords; i += 2) {
    tmp[i] = r.src[i] ^ r.even;
    tmp[i + 1] = r.src[i + 1] ^ r.odd;
  }
  std::memcpy(out, tmp, kChunk);  // little-endian byte order
}

// Bytes [from, to) of a chunk.
inline void FillPartial(const ChunkRecipe& r, size_t from, size_t to,
                        unsigned char* out) {
  unsigned char whole[kChunk];
  FillChunk(r, whole);
  std::memcpy(out, whole + from, to - from);
}

void FillRange(const uint64_t* pool, uint64_t key, uint64_t offset,
               unsigned char* out, size_t len) {
  while (len > 0) {
    uint64_t c = offset / kChunk;
    size_t from = static_cast<size_t>(offset % kChunk);
    size_t to = std::min(kChunk, from + len);
    ChunkRecipe r = Recipe(pool, key, c);
    if (from == 0 && to == kChunk) {
      FillChunk(r, out);
    } else {
      FillPartial(r, from, to, out);
    }
    out += to - from;
    offset += to - from;
    len -= to - from;
  }
}

}  // namespace

uint64_t PatternStreamKey(const PatternKey& k) {
  uint64_t h = Mix64(k.seed ^ 0x636b7074626e6368ull);
  h = Mix64(h ^ k.step);
  h = Mix64(h ^ (static_cast<uint64_t>(k.rank) << 32 | k.file));
  return h;
}

void FillPattern(uint64_t key, uint64_t offset, void* buf, size_t len) {
  FillRange(PoolWords(), key, offset, static_cast<unsigned char*>(buf), len);
}

size_t FirstPatternMismatch(uint64_t key, uint64_t offset, const void* buf,
                            size_t len) {
  const auto* in = static_cast<const unsigned char*>(buf);
  constexpr size_t kSpan = 64 * 1024;
  std::vector<unsigned char> expect(kSpan);
  for (size_t done = 0; done < len;) {
    size_t n = std::min(kSpan, len - done);
    FillPattern(key, offset + done, expect.data(), n);
    if (std::memcmp(expect.data(), in + done, n) != 0) {
      for (size_t i = 0; i < n; ++i) {
        if (expect[i] != in[done + i]) return done + i;
      }
    }
    done += n;
  }
  return len;
}

}  // namespace ckpt
