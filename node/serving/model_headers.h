// A model on storage as a serving replica finds it before reading a
// tensor: its files (from model.safetensors.index.json when there is one,
// as transformers loads a sharded model, else the directory's
// *.safetensors) and each file's header, read the way safetensors readers
// read it (its first 8 bytes, then its N) and checked as hostile input
// (common/serving/safetensors.h). The index, when there, must agree with
// the headers: every tensor in the file it names (its total_size, which
// loaders never read, may differ: said in a note).
// Thread-compatible: one call per thread, on its own backend or a shared
// one that allows it.
#ifndef CKPTBENCH_NODE_SERVING_MODEL_HEADERS_H_
#define CKPTBENCH_NODE_SERVING_MODEL_HEADERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/serving/safetensors.h"
#include "node/storage/storage.h"

namespace ckpt {

// The most tensors a model's files may hold together (real ones hold
// thousands; DeepSeek-V3 about 90,000): what keeping their headers may cost.
inline constexpr uint64_t kMaxModelTensors = 1 << 20;

struct ModelFileHeader {
  std::string name;  // within the model's directory
  uint64_t size = 0;
  StHeader header;
};

struct ModelHeaders {
  std::vector<ModelFileHeader> files;  // by name
  bool indexed = false;                // from the index
  uint64_t tensors = 0;
  uint64_t tensor_bytes = 0;  // the tensors' bytes, headers left out
  uint64_t header_bytes = 0;  // the headers' (8 + N each)
  // What was odd but not wrong: an index's total_size that is not its
  // files' tensor bytes (loaders never read it).
  std::vector<std::string> notes;
};

// How a model's headers are read: as a loader reads them (the kernel's
// read-ahead and all), or, before a cold load, reading no more than they
// are (ReadOptions::no_readahead).
enum class HeaderReads { kAsALoader, kNoReadahead };

// The model under `dir`: its directory listed within `bounds` (only the
// entries directly in it count), its files' headers read and checked.
// Errors name the file and what was expected; a directory without a
// .safetensors file is NotFound naming it.
absl::StatusOr<ModelHeaders> ReadModelHeaders(
    Storage& storage, const std::string& dir, const ListingBounds& bounds,
    HeaderReads reads = HeaderReads::kAsALoader);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_SERVING_MODEL_HEADERS_H_
