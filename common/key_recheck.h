// One configuration key's value checked as the key table takes it, from the
// value as it arrived (a number off the wire, say, that the typed Config
// could not hold), without a Config to put it in. RecheckKeys (config.h)
// checks a whole Config's keys under a prefix the same way. Thread-safe.
#ifndef CKPTBENCH_COMMON_KEY_RECHECK_H_
#define CKPTBENCH_COMMON_KEY_RECHECK_H_

#include <string>

#include "absl/status/status.h"

namespace ckpt {

// InvalidArgument "KEY = 'VALUE': expected ..." when the table refuses it;
// Internal when no key is named `key`.
absl::Status RecheckKey(const std::string& key, const std::string& value);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_KEY_RECHECK_H_
