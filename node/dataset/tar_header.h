// POSIX ustar headers (IEEE Std 1003.1, "pax" interchange format, ustar
// header block): the one ckptbench writes for a regular file, and what a
// 512-byte block read from a shard says. Pure; thread-safe.
#ifndef CKPTBENCH_NODE_DATASET_TAR_HEADER_H_
#define CKPTBENCH_NODE_DATASET_TAR_HEADER_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/dataset/dataset_layout.h"  // kTarBlock

namespace ckpt {

using TarBlock = std::array<unsigned char, 512>;

// A regular file's header: `name` (at most 100 bytes, ASCII), `size` (below
// 8 GiB: 11 octal digits), mode 0644, owner 0:0, the fixed mtime
// kTarMtime, type '0', magic "ustar\0" version "00".
TarBlock TarFileHeader(std::string_view name, uint64_t size);
inline constexpr uint64_t kTarMtime = 1700000000;  // 2023-11-14

// What one header block says, checked: its checksum (the unsigned sum, or
// the signed one some old writers used), a size in octal or GNU's base-256
// form, a name of at most 255 bytes (ustar's prefix + "/" + name).
struct TarHeaderInfo {
  char type = '0';
  uint64_t size = 0;
  std::string name;
};
// nullopt for a block of zeros (the archive's end); an error naming
// `what` (the shard) and the block's offset otherwise.
absl::StatusOr<std::optional<TarHeaderInfo>> ParseTarHeader(
    const TarBlock& block, const std::string& what, uint64_t offset);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_TAR_HEADER_H_
