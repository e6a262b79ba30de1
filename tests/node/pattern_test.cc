#include "node/pattern.h"

#include <gtest/gtest.h>

#include <vector>

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

}  // namespace
}  // namespace ckpt
