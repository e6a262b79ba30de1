// Byte-size parsing and human-readable formatting of sizes and rates.
// Pure functions; thread-safe.
#ifndef CKPTBENCH_COMMON_BYTES_H_
#define CKPTBENCH_COMMON_BYTES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace ckpt {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;
inline constexpr uint64_t kGiB = 1024 * kMiB;
inline constexpr uint64_t kTiB = 1024 * kGiB;

// Parses "4096", "4k", "4KiB", "8MB", "1.5GiB", "2T". Suffixes are
// case-insensitive; K/M/G/T and KiB/MiB/... are powers of 1024, KB/MB/...
// are powers of 1000. Fails with InvalidArgument on anything else,
// negative values, or overflow.
absl::StatusOr<uint64_t> ParseByteSize(std::string_view text);

// "1.50 GiB", "512 B".
std::string FormatBytes(uint64_t bytes);

// MiB/s for `bytes` moved in `seconds` (0 when seconds <= 0).
double MibPerSecond(uint64_t bytes, double seconds);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_BYTES_H_
