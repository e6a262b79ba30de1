#include "common/config_keys.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace ckpt {
namespace keydefs {

absl::Status Expect(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("expected ", what));
}

std::string IntRange(int min, int max) {
  return absl::StrCat("an integer from ", min, " to ", max);
}

absl::Status ParseInt(const std::string& v, int min, int* out) {
  int x = 0;
  const char* end = v.data() + v.size();
  auto [p, ec] = std::from_chars(v.data(), end, x);
  if (ec != std::errc() || p != end || x < min) {
    // The bound above too: "2147483648" is >= 0, but no int holds it.
    return Expect(IntRange(min, std::numeric_limits<int>::max()));
  }
  *out = x;
  return absl::OkStatus();
}

absl::Status ParseU64(const std::string& v, uint64_t* out) {
  uint64_t x = 0;
  const char* end = v.data() + v.size();
  auto [p, ec] = std::from_chars(v.data(), end, x);
  if (ec != std::errc() || p != end) {
    return Expect(absl::StrCat("an integer from 0 to ",
                               std::numeric_limits<uint64_t>::max()));
  }
  *out = x;
  return absl::OkStatus();
}

absl::Status ParseDuration(const std::string& v, double* out) {
  constexpr char kExpected[] =
      "a duration >= 0: seconds, or a number with s, m, h or d such as 90, "
      "30m or 24h";
  if (v.empty()) return Expect(kExpected);
  double unit = 1;
  std::string number = v;
  switch (v.back()) {
    case 's':
      unit = 1;
      number.pop_back();
      break;
    case 'm':
      unit = 60;
      number.pop_back();
      break;
    case 'h':
      unit = 3600;
      number.pop_back();
      break;
    case 'd':
      unit = 86400;
      number.pop_back();
      break;
    default:
      break;
  }
  char* end = nullptr;
  const double d = number.empty() ? -1 : std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(d >= 0) ||
      d * unit > 10 * 365.0 * 86400) {
    return Expect(kExpected);
  }
  *out = d * unit;
  return absl::OkStatus();
}

absl::Status ParseBool(const std::string& v, bool* out) {
  std::string l = absl::AsciiStrToLower(v);
  if (l == "true" || l == "1" || l == "yes" || l == "on") {
    *out = true;
  } else if (l == "false" || l == "0" || l == "no" || l == "off") {
    *out = false;
  } else {
    return Expect("true or false");
  }
  return absl::OkStatus();
}

absl::Status ParseEnum(const std::string& v,
                       const std::vector<std::string>& allowed,
                       std::string* out) {
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    return Expect(absl::StrCat("one of ", absl::StrJoin(allowed, ", ")));
  }
  *out = v;
  return absl::OkStatus();
}

std::string BoolStr(bool b) { return b ? "true" : "false"; }

std::string SizeText(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? std::to_string(bytes) : absl::StrCat(bytes, kUnits[u]);
}

}  // namespace keydefs
}  // namespace ckpt
