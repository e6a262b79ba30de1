// Small file helpers shared by every writer of result files. Thread-safe
// (no shared state).
#ifndef CKPTBENCH_COMMON_FILES_H_
#define CKPTBENCH_COMMON_FILES_H_

#include <string>

#include "absl/status/status.h"

namespace ckpt {

// Writes `text` to `path` through PATH.tmp and a rename, so a reader sees
// the old file or the whole new one. Errors name the file.
absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_FILES_H_
