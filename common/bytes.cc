#include "common/bytes.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace ckpt {
namespace {

// Unit suffixes (lower case) and their bytes: binary (k, KiB) and decimal
// (kB).
constexpr double kKi = kKiB, kMi = kMiB, kGi = kGiB, kTi = kTiB;
constexpr std::pair<std::string_view, double> kUnits[] = {
    {"", 1},      {"b", 1},    {"k", kKi},   {"kib", kKi}, {"m", kMi},
    {"mib", kMi}, {"g", kGi},  {"gib", kGi}, {"t", kTi},   {"tib", kTi},
    {"kb", 1e3},  {"mb", 1e6}, {"gb", 1e9},  {"tb", 1e12},
};

}  // namespace

absl::StatusOr<uint64_t> ParseByteSize(std::string_view text) {
  std::string s(
      absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size())));
  auto bad = [&]() {
    return absl::InvalidArgumentError(
        "expected a byte size such as 4096, 64KiB, 8MiB or 1GiB");
  };
  if (s.empty()) return bad();
  size_t i = 0;
  while (i < s.size() &&
         (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
    ++i;
  }
  if (i == 0) return bad();
  std::string number = s.substr(0, i);
  std::string unit = absl::AsciiStrToLower(
      absl::StripAsciiWhitespace(absl::string_view(s).substr(i)));
  if (number.find('.') != number.rfind('.')) return bad();
  const auto row = std::find_if(std::begin(kUnits), std::end(kUnits),
                                [&](const auto& u) { return u.first == unit; });
  if (row == std::end(kUnits)) return bad();
  const double multiplier = row->second;
  // Never std::stod: it throws on "." and on numbers past double's range.
  double parsed = 0;
  if (!absl::SimpleAtod(number, &parsed)) return bad();
  double value = parsed * multiplier;
  if (!std::isfinite(value) || value >= 1.8e19) return bad();
  double rounded = std::round(value);
  if (std::fabs(rounded - value) > 1e-6 * std::max(1.0, value)) {
    return absl::InvalidArgumentError(
        "byte size is not a whole number of bytes");
  }
  return static_cast<uint64_t>(rounded);
}

std::string FormatBytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return absl::StrFormat("%d B", bytes);
  return absl::StrFormat("%.2f %s", v, kUnits[u]);
}

double MibPerSecond(uint64_t bytes, double seconds) {
  if (seconds <= 0) return 0;
  return static_cast<double>(bytes) / static_cast<double>(kMiB) / seconds;
}

}  // namespace ckpt
