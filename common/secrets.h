// The credential values this process holds (secret keys, session and
// bearer tokens, private keys, the control token), so that text built from
// what a server sent back (an error body or header that echoes the request)
// never carries one into an error, a log line or result.json. Each value is
// kept with the forms it takes on the wire: literal, URL-encoded (both hex
// cases, '/' kept or encoded, a space as %20 or '+'), JSON- and
// XML-escaped. Values shorter than kMinSecretLength are not registered:
// they would scrub ordinary words. Thread-safe; ScrubSecrets costs one
// atomic load while nothing is registered.
#ifndef CKPTBENCH_COMMON_SECRETS_H_
#define CKPTBENCH_COMMON_SECRETS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace ckpt {

inline constexpr size_t kMinSecretLength = 8;
inline constexpr char kRedacted[] = "[redacted]";

// Adds `value` (and its encoded forms) to the process-wide registry; a
// value shorter than kMinSecretLength, or one already there, is ignored.
void RegisterSecret(absl::string_view value);

// `text` with every occurrence of a registered value, in any of its forms,
// replaced by kRedacted; occurrences that overlap or touch become one
// marker.
std::string ScrubSecrets(absl::string_view text);

// The forms of `value` that are looked for (exposed for tests).
std::vector<std::string> SecretForms(absl::string_view value);

// Forgets every registered value (tests only).
void ClearSecretsForTesting();

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_SECRETS_H_
