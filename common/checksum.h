// Streaming checksums of shard bytes: XXH3-64 (fast; default for local
// verification) and CRC32C (Castagnoli, as GCS and S3 use; from ISA-L).
// A Checksummer is not thread-safe; use one per stream.
#ifndef CKPTBENCH_COMMON_CHECKSUM_H_
#define CKPTBENCH_COMMON_CHECKSUM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/kinds.h"  // ChecksumKind

namespace ckpt {

class Checksummer {
 public:
  virtual ~Checksummer() = default;
  virtual void Update(const void* data, size_t len) = 0;
  // Value of everything fed since construction or the last Reset().
  virtual uint64_t Value() const = 0;
  virtual void Reset() = 0;
};

std::unique_ptr<Checksummer> NewChecksummer(ChecksumKind kind);

// One-shot helpers.
uint64_t Xxh3(const void* data, size_t len);
// Standard CRC32C (check value of "123456789" is 0xE3069283).
uint32_t Crc32c(const void* data, size_t len);
// CRC32C as S3's x-amz-checksum-crc32c and GCS's crc32c carry it: base64 of
// the 4 big-endian bytes ("123456789" -> "4waSgw==").
std::string Crc32cBase64(const void* data, size_t len);
std::string Crc32cToBase64(uint32_t crc);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CHECKSUM_H_
