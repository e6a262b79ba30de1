// Small string helpers: edit distance for "did you mean" suggestions,
// base64, and UTF-8 validity for text that goes into JSON.
#ifndef CKPTBENCH_COMMON_TEXT_H_
#define CKPTBENCH_COMMON_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

// Case-insensitive Levenshtein distance.
int EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `word`, or "" when none is close enough to be a
// plausible typo (distance > max(2, len/3)).
std::string ClosestMatch(std::string_view word,
                         const std::vector<std::string>& candidates);

enum class Base64Alphabet {
  kStandard,  // RFC 4648 section 4, '=' padded (S3, GCS checksum headers)
  kUrl,       // RFC 4648 section 5, unpadded (JWTs, RFC 7515)
};
std::string Base64Encode(std::string_view data,
                         Base64Alphabet alphabet = Base64Alphabet::kStandard);

// Whether `s` is well-formed UTF-8 (no overlongs, surrogates or code points
// past U+10FFFF).
bool IsValidUtf8(std::string_view s);
// `s` with every byte that is not part of well-formed UTF-8 written as the
// four characters \xHH: JSON can carry it, and a reader sees which byte it
// was (a path or a file's garbage quoted in an error).
std::string EscapeInvalidUtf8(std::string_view s);

// `s` made safe for one line of a log or terminal, whatever it holds (a
// host name a node sent, a server's error body, a name read from storage):
// newline, carriage return and tab as \n \r \t, every other C0 or C1
// control character (escape sequences start with ESC or CSI) and DEL as
// \xHH or \u{HHHH}, the Unicode line separators and bidirectional
// overrides (which reorder what a reader sees) as \u{HHHH}, and invalid
// UTF-8 as \xHH. Printable text is unchanged.
std::string EscapeForTerminal(std::string_view s);

// Whether `s` holds a C0 control character or DEL (what a name read from
// data must not hold).
bool HasControlCharacter(std::string_view s);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_TEXT_H_
