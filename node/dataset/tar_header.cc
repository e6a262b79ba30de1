#include "node/dataset/tar_header.h"

#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/text.h"

namespace ckpt {
namespace {

// Field offsets and lengths of the ustar header.
constexpr size_t kName = 0, kNameLen = 100;
constexpr size_t kMode = 100, kUid = 108, kGid = 116;
constexpr size_t kSize = 124, kSizeLen = 12;
constexpr size_t kMtime = 136;
constexpr size_t kChksum = 148, kChksumLen = 8;
constexpr size_t kType = 156;
constexpr size_t kMagic = 257, kVersion = 263;
constexpr size_t kPrefix = 345, kPrefixLen = 155;

void Octal(TarBlock& b, size_t at, size_t len, uint64_t v) {
  // len - 1 digits, zero-padded, then NUL.
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%0*llo", static_cast<int>(len - 1),
                static_cast<unsigned long long>(v));
  std::memcpy(b.data() + at, buf, len - 1);
  b[at + len - 1] = 0;
}

// The unsigned and signed sums of the block with its checksum field as
// spaces.
std::pair<uint64_t, int64_t> Sums(const TarBlock& b) {
  uint64_t u = 0;
  int64_t s = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    unsigned char c = (i >= kChksum && i < kChksum + kChksumLen) ? ' ' : b[i];
    u += c;
    s += static_cast<signed char>(c);
  }
  return {u, s};
}

absl::Status Bad(const std::string& what, uint64_t offset,
                 const std::string& why) {
  return absl::DataLossError(
      absl::StrCat(what, ": tar header at byte ", offset, " ", why));
}

// An octal field (leading spaces, digits, then NUL or space) or, for
// sizes, GNU's base-256 (first byte 0x80, big-endian rest).
std::optional<uint64_t> Number(const TarBlock& b, size_t at, size_t len) {
  if (b[at] == 0x80) {
    uint64_t v = 0;
    for (size_t i = at + 1; i < at + len; ++i) {
      if (v >> 56) return std::nullopt;
      v = (v << 8) | b[i];
    }
    return v;
  }
  size_t i = at, end = at + len;
  while (i < end && b[i] == ' ') ++i;
  uint64_t v = 0;
  bool digits = false;
  for (; i < end && b[i] >= '0' && b[i] <= '7'; ++i) {
    if (v >> 60) return std::nullopt;
    v = v * 8 + (b[i] - '0');
    digits = true;
  }
  for (; i < end; ++i) {
    if (b[i] != 0 && b[i] != ' ') return std::nullopt;
  }
  if (!digits) return std::nullopt;
  return v;
}

std::string Field(const TarBlock& b, size_t at, size_t len) {
  const char* p = reinterpret_cast<const char*>(b.data() + at);
  return std::string(p, strnlen(p, len));
}

}  // namespace

TarBlock TarFileHeader(std::string_view name, uint64_t size) {
  TarBlock b{};
  std::memcpy(b.data() + kName, name.data(), std::min(name.size(), kNameLen));
  Octal(b, kMode, 8, 0644);
  Octal(b, kUid, 8, 0);
  Octal(b, kGid, 8, 0);
  Octal(b, kSize, kSizeLen, size);
  Octal(b, kMtime, 12, kTarMtime);
  b[kType] = '0';
  std::memcpy(b.data() + kMagic, "ustar", 6);  // with its NUL
  std::memcpy(b.data() + kVersion, "00", 2);
  // Six octal digits, NUL, space (what GNU tar and Python's tarfile write).
  char sum[8];
  std::snprintf(sum, sizeof(sum), "%06llo",
                static_cast<unsigned long long>(Sums(b).first));
  std::memcpy(b.data() + kChksum, sum, 6);
  b[kChksum + 6] = 0;
  b[kChksum + 7] = ' ';
  return b;
}

absl::StatusOr<std::optional<TarHeaderInfo>> ParseTarHeader(
    const TarBlock& b, const std::string& what, uint64_t offset) {
  bool zero = true;
  for (unsigned char c : b) zero = zero && c == 0;
  if (zero) return std::nullopt;
  std::optional<uint64_t> sum = Number(b, kChksum, kChksumLen);
  auto [usum, ssum] = Sums(b);
  if (!sum || (*sum != usum && static_cast<int64_t>(*sum) != ssum)) {
    return Bad(what, offset,
               "has a wrong checksum (not a tar archive, or "
               "corrupted)");
  }
  TarHeaderInfo info;
  info.type = static_cast<char>(b[kType]);
  std::optional<uint64_t> size = Number(b, kSize, kSizeLen);
  if (!size) return Bad(what, offset, "has a size field that is no number");
  info.size = *size;
  info.name = Field(b, kName, kNameLen);
  if (std::memcmp(b.data() + kMagic, "ustar", 5) == 0) {
    // ustar (and POSIX pax): a prefix joins the name; GNU's "ustar  " uses
    // those bytes for times, so only the POSIX magic has a prefix.
    std::string prefix =
        b[kMagic + 5] == 0 ? Field(b, kPrefix, kPrefixLen) : std::string();
    if (!prefix.empty()) info.name = absl::StrCat(prefix, "/", info.name);
  }
  return info;
}

}  // namespace ckpt
