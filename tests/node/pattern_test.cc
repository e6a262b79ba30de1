#include "node/pattern.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "common/checksum.h"

namespace ckpt {
namespace {

TEST(Pattern, DeterministicAndKeyed) {
  uint64_t k = PatternStreamKey({1234, 3, 5, 0});
  std::vector<unsigned char> a(10000), b(10000);
  FillPattern(k, 0, a.data(), a.size());
  FillPattern(k, 0, b.data(), b.size());
  EXPECT_EQ(a, b);
  // Every key component changes the bytes.
  for (PatternKey other :
       {PatternKey{1235, 3, 5, 0}, PatternKey{1234, 4, 5, 0},
        PatternKey{1234, 3, 6, 0}, PatternKey{1234, 3, 5, 1}}) {
    FillPattern(PatternStreamKey(other), 0, b.data(), b.size());
    EXPECT_NE(a, b);
  }
}

TEST(Pattern, AnyOffsetMatchesTheWholeStream) {
  uint64_t k = PatternStreamKey({9, 1, 0, 0});
  std::vector<unsigned char> whole(4096 + 77);
  FillPattern(k, 0, whole.data(), whole.size());
  for (uint64_t off : {1ull, 3ull, 7ull, 8ull, 13ull, 4000ull}) {
    for (size_t len : {1ul, 5ul, 8ul, 29ul, 60ul}) {
      std::vector<unsigned char> part(len);
      FillPattern(k, off, part.data(), len);
      EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + off))
          << off << "+" << len;
    }
  }
}

TEST(Pattern, NotTrivial) {
  std::vector<unsigned char> a(1 << 16);
  FillPattern(PatternStreamKey({1, 1, 0, 0}), 0, a.data(), a.size());
  size_t zeros = std::count(a.begin(), a.end(), 0);
  EXPECT_LT(zeros, a.size() / 100);  // ~1/256 expected
}

TEST(Pattern, FirstMismatchFindsExactByte) {
  uint64_t k = PatternStreamKey({5, 2, 1, 0});
  std::vector<unsigned char> a(300000);
  FillPattern(k, 1000, a.data(), a.size());
  EXPECT_EQ(FirstPatternMismatch(k, 1000, a.data(), a.size()), a.size());
  a[123457] ^= 0x40;
  EXPECT_EQ(FirstPatternMismatch(k, 1000, a.data(), a.size()), 123457u);
}

// Spans that start and end inside chunks and cross several chunk
// boundaries give the same bytes as one fill from 0.
TEST(Pattern, SpansAcrossChunksMatchTheWholeStream) {
  uint64_t k = PatternStreamKey({11, 2, 3, 4});
  std::vector<unsigned char> whole(5 * 4096 + 300);
  FillPattern(k, 0, whole.data(), whole.size());
  for (uint64_t off : {0ull, 1ull, 4095ull, 4096ull, 4100ull, 8191ull}) {
    for (size_t len : {4096ul, 4097ul, 8192ul, 12000ul}) {
      std::vector<unsigned char> part(len);
      FillPattern(k, off, part.data(), len);
      EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + off))
          << off << "+" << len;
    }
  }
}

// No two 4 KiB-aligned chunks of a checkpoint are equal: sampled over 64
// files (4 ranks x 16 files) of 8 MiB each, 131,072 chunks, compared by
// their xxh3 (equal chunks would have equal hashes).
TEST(Pattern, AlignedChunksNeverRepeatAcrossACheckpoint) {
  std::set<uint64_t> seen;
  std::vector<unsigned char> buf(8 << 20);
  size_t chunks = 0;
  for (uint32_t rank = 0; rank < 4; ++rank) {
    for (uint32_t file = 0; file < 16; ++file) {
      FillPattern(PatternStreamKey({7, 100, rank, file}), 0, buf.data(),
                  buf.size());
      for (size_t o = 0; o < buf.size(); o += 4096) {
        seen.insert(Xxh3(buf.data() + o, 4096));
        ++chunks;
      }
    }
  }
  EXPECT_EQ(chunks, 131072u);
  EXPECT_EQ(seen.size(), chunks);
}

// gzip (zlib at its best level) shrinks a 16 MiB shard by less than 1%:
// storage with inline compression sees incompressible bytes.
TEST(Pattern, GzipCannotShrinkAShard) {
  std::vector<unsigned char> shard(16 << 20);
  FillPattern(PatternStreamKey({3, 1, 0, 0}), 0, shard.data(), shard.size());
  uLongf out_len = compressBound(shard.size());
  std::vector<unsigned char> out(out_len);
  ASSERT_EQ(compress2(out.data(), &out_len, shard.data(), shard.size(),
                      Z_BEST_COMPRESSION),
            Z_OK);
  EXPECT_GT(static_cast<double>(out_len), 0.99 * shard.size());
}

// The generator's bytes are part of the on-disk format: .metadata names it
// (kPatternName) and loads refuse another. This pins the bytes; a change
// that trips it needs a new kPatternName.
TEST(Pattern, BytesArePinnedToTheGeneratorName) {
  ASSERT_STREQ(kPatternName, "pool-xor-v1");
  std::vector<unsigned char> a(64 * 1024);
  FillPattern(PatternStreamKey({1, 2, 3, 4}), 5, a.data(), a.size());
  EXPECT_EQ(Xxh3(a.data(), a.size()), 9197861724392081607ull);
}

}  // namespace
}  // namespace ckpt
