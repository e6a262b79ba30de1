// Decodes base64url (test side, by hand: the code under test only encodes).
#ifndef CKPTBENCH_TESTS_TESTING_BASE64URL_H_
#define CKPTBENCH_TESTS_TESTING_BASE64URL_H_

#include <cstdint>
#include <string>

namespace ckpt {

inline std::string Base64UrlDecode(const std::string& s) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '-' ? 62 : 63;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    acc = (acc << 6) | static_cast<uint32_t>(value(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_BASE64URL_H_
