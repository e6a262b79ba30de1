#include "common/checksum.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ckpt {
namespace {

// Check values from FACTS-OBJECT-STORES.md section 5 (RFC 3720 vectors).
TEST(Crc32c, StandardVectors) {
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
  std::vector<unsigned char> zeros(32, 0x00), ones(32, 0xFF);
  EXPECT_EQ(Crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(ones.data(), ones.size()), 0x62A8AB43u);
}

// The header form: FACTS section 4 ("123456789" -> 4waSgw==); the others are
// the RFC 3720 values above, base64-encoded by Python's base64 module.
TEST(Crc32c, Base64AsS3AndGcsCarryIt) {
  EXPECT_EQ(Crc32cBase64("123456789", 9), "4waSgw==");
  std::vector<unsigned char> zeros(32, 0x00), ones(32, 0xFF);
  EXPECT_EQ(Crc32cBase64(zeros.data(), zeros.size()), "ipE2qg==");
  EXPECT_EQ(Crc32cBase64(ones.data(), ones.size()), "YqirQw==");
}

TEST(Checksummer, StreamingEqualsOneShot) {
  std::string data(100000, '\0');
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<char>(i * 31 + 7);
  for (ChecksumKind kind : {ChecksumKind::kXxh3, ChecksumKind::kCrc32c}) {
    auto one = NewChecksummer(kind);
    one->Update(data.data(), data.size());
    auto pieces = NewChecksummer(kind);
    for (size_t off = 0; off < data.size(); off += 777) {
      pieces->Update(data.data() + off,
                     std::min<size_t>(777, data.size() - off));
    }
    EXPECT_EQ(one->Value(), pieces->Value()) << Name(kind);
    pieces->Reset();
    pieces->Update("123456789", 9);
    if (kind == ChecksumKind::kCrc32c) {
      EXPECT_EQ(pieces->Value(), 0xE3069283u);
    }
  }
  EXPECT_EQ(NewChecksummer(ChecksumKind::kXxh3)->Value(), Xxh3("", 0));
}

TEST(Checksummer, DetectsOneFlippedBit) {
  std::string data(4096, 'a');
  uint64_t before = Xxh3(data.data(), data.size());
  data[1234] ^= 1;
  EXPECT_NE(before, Xxh3(data.data(), data.size()));
}

TEST(ChecksumKind, NamesParseBack) {
  EXPECT_EQ(ParseKind<ChecksumKind>("crc32c"), ChecksumKind::kCrc32c);
  EXPECT_EQ(ParseKind<ChecksumKind>("xxh3"), ChecksumKind::kXxh3);
  EXPECT_FALSE(ParseKind<ChecksumKind>("md5").has_value());
}

}  // namespace
}  // namespace ckpt
