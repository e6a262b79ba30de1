#include "common/bytes.h"

#include <cctype>
#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace ckpt {

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
  double multiplier = 1;
  if (unit.empty() || unit == "b") {
    multiplier = 1;
  } else if (unit == "k" || unit == "kib") {
    multiplier = static_cast<double>(kKiB);
  } else if (unit == "m" || unit == "mib") {
    multiplier = static_cast<double>(kMiB);
  } else if (unit == "g" || unit == "gib") {
    multiplier = static_cast<double>(kGiB);
  } else if (unit == "t" || unit == "tib") {
    multiplier = static_cast<double>(kTiB);
  } else if (unit == "kb") {
    multiplier = 1e3;
  } else if (unit == "mb") {
    multiplier = 1e6;
  } else if (unit == "gb") {
    multiplier = 1e9;
  } else if (unit == "tb") {
    multiplier = 1e12;
  } else {
    return bad();
  }
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
