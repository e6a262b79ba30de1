// A generated model's bytes: each file its safetensors header, then its
// tensors' bytes from the pattern (node/pattern.h) keyed by the run's seed
// and the file's index in the model, so a replica verifies every byte it
// reads without a stored copy, from any offset. Written once by
// WriteGeneratedModel; checked chunk by chunk by CheckModelChunk.
// Stateless; thread-safe.
#ifndef CKPTBENCH_NODE_SERVING_MODEL_BYTES_H_
#define CKPTBENCH_NODE_SERVING_MODEL_BYTES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/serving/model_files.h"
#include "node/storage/storage.h"

namespace ckpt {

// The pattern's stream key of file `file` (its index in the model's
// files) of a model generated with `seed`.
uint64_t ModelStreamKey(uint64_t seed, uint32_t file);

// Writes file `index` of a generated model, `f`, under `dir` in appends of
// at most `block_bytes`, made durable when `sync`; each byte appended is
// added to `written` (may be null) as it goes.
absl::Status WriteModelFile(Storage& storage, const std::string& dir,
                            const ModelFile& f, uint32_t index, uint64_t seed,
                            size_t block_bytes, bool sync,
                            std::atomic<uint64_t>* written);

// Writes `files` (ShardModel's) under `dir`, each made durable before the
// next, in appends of at most `block_bytes`; then, for more than one file,
// model.safetensors.index.json.
absl::Status WriteGeneratedModel(Storage& storage, const std::string& dir,
                                 const std::vector<ModelFile>& files,
                                 uint64_t seed, size_t block_bytes);

// Checks `len` bytes read at `offset` of file `index` of the model, `f`,
// at `path`: its header where the header is, the pattern after it.
// DataLoss naming the path and the first byte that differs.
absl::Status CheckModelChunk(const ModelFile& f, uint32_t index, uint64_t seed,
                             const std::string& path, uint64_t offset,
                             const unsigned char* data, size_t len);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_SERVING_MODEL_BYTES_H_
