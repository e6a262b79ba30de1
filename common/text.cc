#include "common/text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace ckpt {

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] =
          std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string ClosestMatch(std::string_view word,
                         const std::vector<std::string>& candidates) {
  int best = 1 << 30;
  std::string best_word;
  for (const auto& c : candidates) {
    int d = EditDistance(word, c);
    if (d < best) {
      best = d;
      best_word = c;
    }
  }
  int limit = std::max<int>(2, static_cast<int>(word.size()) / 3);
  return best <= limit ? best_word : "";
}

std::string Base64Encode(std::string_view data, Base64Alphabet alphabet) {
  const bool url = alphabet == Base64Alphabet::kUrl;
  const char* digits =
      url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
          : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  for (size_t i = 0; i < data.size(); i += 3) {
    const size_t n = std::min<size_t>(3, data.size() - i);
    uint32_t v = 0;
    for (size_t k = 0; k < 3; ++k) {
      v = (v << 8) | (k < n ? static_cast<uint8_t>(data[i + k]) : 0u);
    }
    // n input bytes give n + 1 digits; the rest of the group is padding.
    for (size_t k = 0; k < 4; ++k) {
      if (k <= n) {
        out += digits[(v >> (18 - 6 * k)) & 63];
      } else if (!url) {
        out += '=';
      }
    }
  }
  return out;
}

}  // namespace ckpt
