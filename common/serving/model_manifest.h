// A generated model as ckptbench makes it (its preset's tensors in a
// dtype, split into files as Hugging Face splits them, its bytes from a
// seed) and the manifest that says it is there, written last, beside the
// files: ckptbench-model.json. While a run makes one, the directory is
// claimed as a dataset's is (kMakeClaimDir, Storage::ClaimDir: a
// directory holds a dataset or a model, never both) and holds the pending
// manifest (kPendingManifestName), so that a run killed half-way leaves a model
// that a later `serve.remove` removes and no run loads. Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_SERVING_MODEL_MANIFEST_H_
#define CKPTBENCH_COMMON_SERVING_MODEL_MANIFEST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/kinds.h"
#include "common/serving/model_files.h"

namespace ckpt {

inline constexpr char kModelManifestName[] = "ckptbench-model.json";
inline constexpr char kModelManifestFormat[] = "ckptbench.model/v1";
// A manifest is a few hundred bytes; a larger one is refused unread.
inline constexpr uint64_t kMaxModelManifestBytes = 64 << 10;

// What a generated model is made of.
struct GeneratedModel {
  std::string preset;   // model.name: a Llama preset, or any other
  int num_layers = 10;  // model.num_layers, for the transformer preset
  ModelDtype dtype = ModelDtype::kBf16;
  uint64_t file_bytes = kHfMaxShardBytes;
  uint64_t seed = 1;
  bool operator==(const GeneratedModel&) const = default;
};

// The safetensors dtype of a generated model's dtype (serve.dtype).
StDtype StDtypeOf(ModelDtype dtype);

// Its files (names, headers, tensors), its config.json, and the KV heads' rows
// (the preset's head dimension; 0 when it has none): InvalidArgument naming
// model.name when the preset is unknown or has no tensors (MLPerf's).
struct GeneratedFiles {
  std::vector<ModelFile> files;
  uint64_t head_dim = 0;
  std::string config;  // config.json's text: a Llama's; "" for others
  uint64_t bytes = 0;  // the files' sizes, summed
};
absl::StatusOr<GeneratedFiles> GeneratedModelFiles(const GeneratedModel& m);

struct ModelManifest {
  GeneratedModel model;
  uint64_t files = 0, bytes = 0;
  std::string run_id;
  int64_t created_unix_ns = 0;
};

std::string ModelManifestToJson(const ModelManifest& m);
// A manifest read from storage (hostile): the format, every member of its
// type, the preset's name free of control characters; errors name `shown`.
absl::StatusOr<ModelManifest> ModelManifestFromJson(std::string_view text,
                                                    std::string_view shown);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_SERVING_MODEL_MANIFEST_H_
