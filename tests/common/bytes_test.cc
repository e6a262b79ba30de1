#include "common/bytes.h"

#include <gtest/gtest.h>

#include <string>

namespace ckpt {
namespace {

TEST(ParseByteSize, AcceptsUnits) {
  EXPECT_EQ(*ParseByteSize("4096"), 4096u);
  EXPECT_EQ(*ParseByteSize("4k"), 4096u);
  EXPECT_EQ(*ParseByteSize("4KiB"), 4096u);
  EXPECT_EQ(*ParseByteSize("8MiB"), 8u << 20);
  EXPECT_EQ(*ParseByteSize("8 MB"), 8000000u);
  EXPECT_EQ(*ParseByteSize("1.5GiB"), 3ull << 29);
  EXPECT_EQ(*ParseByteSize("2T"), 2ull << 40);
}

TEST(ParseByteSize, RejectsGarbage) {
  for (const char* bad : {"", "abc", "-1", "4 parsecs", "1.2.3k", "0.3"}) {
    EXPECT_FALSE(ParseByteSize(bad).ok()) << bad;
  }
}

// These threw out of std::stod and aborted the process (exit 134).
TEST(ParseByteSize, RejectsADotAndNumbersPastEveryRange) {
  EXPECT_FALSE(ParseByteSize(".").ok());
  EXPECT_FALSE(ParseByteSize(".KiB").ok());
  EXPECT_FALSE(ParseByteSize(std::string(300, '9')).ok());
  EXPECT_FALSE(ParseByteSize(std::string(400, '9')).ok());
  EXPECT_FALSE(ParseByteSize(std::string(400, '9') + "GiB").ok());
  EXPECT_EQ(*ParseByteSize(".5KiB"), 512u);
}

TEST(FormatBytes, Readable) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(3ull << 29), "1.50 GiB");
}

TEST(MibPerSecond, ZeroTimeIsZero) {
  EXPECT_EQ(MibPerSecond(1 << 20, 0), 0);
  EXPECT_DOUBLE_EQ(MibPerSecond(4 << 20, 2), 2.0);
}

}  // namespace
}  // namespace ckpt
