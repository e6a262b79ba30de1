// libFuzzer target: a sweep prepare's attempts file (sweep/sweep_runs.h,
// ParseAttempts), as any file in a results directory others may write:
// whatever it holds, only run-id lines come back (letters, digits, '-', at
// most 64 bytes), at most kMaxAttempts of them, each a line of the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "sweep/sweep_runs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> ids = ckpt::ParseAttempts(text);
  if (ids.size() > ckpt::kMaxAttempts) std::abort();
  for (const std::string& id : ids) {
    if (id.empty() || id.size() > 64) std::abort();
    for (char c : id) {
      if (!absl::ascii_isalnum(c) && c != '-') std::abort();
    }
    if (("\n" + text + "\n").find("\n" + id + "\n") == std::string::npos) {
      std::abort();
    }
  }
  return 0;
}
