#include "node/pattern.h"

#include <cstring>
#include <vector>

namespace ckpt {
namespace {

inline uint64_t Mix(uint64_t z) {  // splitmix64 finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The 8-byte word at word index w.
inline uint64_t Word(uint64_t key, uint64_t w) {
  return Mix(key + w * 0x9e3779b97f4a7c15ull);
}

}  // namespace

uint64_t PatternStreamKey(const PatternKey& k) {
  uint64_t h = Mix(k.seed ^ 0x636b7074626e6368ull);
  h = Mix(h ^ k.step);
  h = Mix(h ^ (static_cast<uint64_t>(k.rank) << 32 | k.file));
  return h;
}

void FillPattern(uint64_t key, uint64_t offset, void* buf, size_t len) {
  auto* out = static_cast<unsigned char*>(buf);
  // Leading bytes up to an 8-byte file offset.
  while (len > 0 && (offset & 7) != 0) {
    uint64_t w = Word(key, offset >> 3);
    *out++ = static_cast<unsigned char>(w >> (8 * (offset & 7)));
    ++offset;
    --len;
  }
  uint64_t wi = offset >> 3;
  size_t words = len / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t w = Word(key, wi + i);
    std::memcpy(out + 8 * i, &w, 8);  // little-endian byte order
  }
  out += 8 * words;
  offset += 8 * words;
  len -= 8 * words;
  for (size_t i = 0; i < len; ++i) {
    uint64_t w = Word(key, (offset + i) >> 3);
    out[i] = static_cast<unsigned char>(w >> (8 * ((offset + i) & 7)));
  }
}

size_t FirstPatternMismatch(uint64_t key, uint64_t offset, const void* buf,
                            size_t len) {
  const auto* in = static_cast<const unsigned char*>(buf);
  constexpr size_t kChunk = 64 * 1024;
  std::vector<unsigned char> expect(kChunk);
  for (size_t done = 0; done < len;) {
    size_t n = std::min(kChunk, len - done);
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
