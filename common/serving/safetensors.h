// The safetensors file format (huggingface/safetensors, README "Format" and
// safetensors/src/tensor.rs): 8 bytes N (unsigned, little-endian), N bytes
// of a UTF-8 JSON header, then the tensors' bytes. The header maps each
// tensor's name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
// within the bytes after the header, end exclusive) and may hold
// "__metadata__", a map of strings; writers pad it with spaces to a
// multiple of 8 bytes.
//
// Reading treats a header as hostile input, as the reference reader does and
// more: at most kMaxStHeaderBytes; UTF-8 JSON of exactly that shape (a
// SAX parse: no document is built, nesting is bounded); dtypes known;
// shapes whole numbers whose product times the dtype's size, without
// overflow, is the tensor's byte length; offsets contiguous from 0, no gaps
// or overlaps, ending where the file ends; names unique, non-empty, without
// control characters. Every error names the file and says what was
// expected. Pure functions; thread-safe.
#ifndef CKPTBENCH_COMMON_SERVING_SAFETENSORS_H_
#define CKPTBENCH_COMMON_SERVING_SAFETENSORS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace ckpt {

// The reference implementation's MAX_HEADER_SIZE.
inline constexpr uint64_t kMaxStHeaderBytes = 100'000'000;
// Bounds of ours on what a header may hold (a real model's are far below):
// a tensor's dimensions, and a tensor's name or a metadata key's bytes
// (metadata values are bounded by the header's length only).
inline constexpr size_t kMaxStDims = 32;
inline constexpr size_t kMaxStName = 4096;

// The element types safetensors defines (safetensors/src/tensor.rs Dtype,
// May 2026), in its order, which is its writer's order of alignment.
enum class StDtype : uint8_t {
  kBool,
  kF4,
  kF6E2M3,
  kF6E3M2,
  kU8,
  kI8,
  kF8E5M2,
  kF8E4M3,
  kF8E8M0,
  kF8E4M3Fnuz,
  kF8E5M2Fnuz,
  kI16,
  kU16,
  kF16,
  kBf16,
  kI32,
  kU32,
  kF32,
  kC64,
  kF64,
  kI64,
  kU64,
};

// "BF16", "F8_E4M3", ...: the name in a header.
std::string_view StDtypeName(StDtype d);
// Bits per element (F4: 4, F6_*: 6; a tensor's elements x bits must be a
// whole number of bytes).
int StDtypeBits(StDtype d);
// The dtype a header names; nullopt for a name safetensors does not define.
std::optional<StDtype> StDtypeFromName(std::string_view name);
// Every name, ", "-joined, for an error.
std::string StDtypeNames();

// A tensor's bytes by its dtype and shape; InvalidArgument (without the
// file's name) when the product overflows 64 bits or is not a whole number
// of bytes.
absl::StatusOr<uint64_t> StShapeBytes(StDtype dtype,
                                      const std::vector<uint64_t>& shape);

struct StTensor {
  std::string name;
  StDtype dtype = StDtype::kBf16;
  std::vector<uint64_t> shape;
  // Within the bytes after the header: [begin, end).
  uint64_t begin = 0, end = 0;
  uint64_t Bytes() const { return end - begin; }
};

struct StHeader {
  uint64_t length = 0;  // N: the JSON header's bytes, padding included
  // In the order of their bytes in the file.
  std::vector<StTensor> tensors;
  // "__metadata__", in the header's order.
  std::vector<std::pair<std::string, std::string>> metadata;
  // Where the tensors' bytes start in the file.
  uint64_t DataStart() const { return 8 + length; }
};

// N from a file's first 8 bytes (`first`: at least 8 bytes), checked
// against the limit and the file's size. `file` names the file in errors
// (shown escaped).
absl::StatusOr<uint64_t> StHeaderLength(std::string_view first,
                                        uint64_t file_size,
                                        std::string_view file);

// The header from its N bytes (the JSON, padding included) of a file of
// `file_size` bytes, every check above made.
absl::StatusOr<StHeader> ParseStHeader(std::string_view json,
                                       uint64_t file_size,
                                       std::string_view file);

// Lays `tensors` (name, dtype, shape set; their sizes must be whole bytes
// that fit 64 bits) out in the order given, setting each one's offsets,
// and returns the file's first 8 + N bytes: the length
// and the compact JSON header ("__metadata__" first when `metadata` is
// not empty, then the tensors in that order), padded with spaces to a
// multiple of 8 as the reference writer pads it.
std::string StHeaderBytes(
    std::vector<StTensor>* tensors,
    const std::vector<std::pair<std::string, std::string>>& metadata);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_SERVING_SAFETENSORS_H_
