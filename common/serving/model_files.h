// A model as Hugging Face publishes it: safetensors files named and split
// as transformers' save_pretrained splits them (huggingface_hub's
// split_state_dict_into_shards_factory, serialization/_base.py), and the
// index beside them, model.safetensors.index.json: {"metadata":
// {"total_size": bytes}, "weight_map": {tensor: file}}, and the model's
// config.json (what transformers' AutoConfig reads first). Pure functions;
// thread-safe.
#ifndef CKPTBENCH_COMMON_SERVING_MODEL_FILES_H_
#define CKPTBENCH_COMMON_SERVING_MODEL_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/model_presets.h"
#include "common/serving/safetensors.h"
#include "common/tensor_spec.h"

namespace ckpt {

// huggingface_hub's MAX_SHARD_SIZE ("5GB": 10^9-based).
inline constexpr uint64_t kHfMaxShardBytes = 5'000'000'000;
inline constexpr char kModelIndexName[] = "model.safetensors.index.json";
// An index is a few tens of KiB for a 70B model; a larger one is refused.
inline constexpr uint64_t kMaxModelIndexBytes = 16 << 20;
inline constexpr char kModelConfigName[] = "config.json";
// A published config.json is about 1 KiB; a download refuses a larger one,
// naming it.
inline constexpr uint64_t kMaxModelConfigBytes = 1 << 20;
// What a download copies beside the safetensors files, at most.
inline constexpr uint64_t kMaxModelSideBytes =
    kMaxModelIndexBytes + kMaxModelConfigBytes;

// One file: its name ("model-00001-of-00004.safetensors"; alone,
// "model.safetensors"), its tensors in the file's order with their offsets
// set, and its first 8 + N bytes.
struct ModelFile {
  std::string name;
  std::vector<StTensor> tensors;
  std::string header;
  uint64_t Size() const;
};

// A preset's tensors (common/model_presets.h: names and shapes) as a
// model in `dtype` (a preset's own dtype is the checkpoint's, fp32).
std::vector<StTensor> ModelTensors(const std::vector<TensorSpec>& preset,
                                   StDtype dtype);

// `tensors` (name, dtype, shape) into files as huggingface_hub splits a
// state dict: in their order, a new file when the next tensor would take
// the current one past `max_file_bytes` (tensor bytes, headers not
// counted), a tensor larger than that alone in a file of its own. Within
// a file the tensors are laid out as safetensors' writer orders them (by
// descending dtype in its enum's order, then by name), after a header whose
// __metadata__ is {"format": "pt"}, as PyTorch's save_file writes it.
std::vector<ModelFile> ShardModel(const std::vector<StTensor>& tensors,
                                  uint64_t max_file_bytes = kHfMaxShardBytes);

// The index of `files` (written only for more than one): total_size, the
// tensors' bytes, and each tensor's file, in the files' order.
std::string ModelIndexJson(const std::vector<ModelFile>& files);

// The config.json of a Llama of `shape` in `dtype`, as transformers'
// LlamaConfig writes one (LlamaForCausalLM, model_type "llama"): the
// members the tensors' shapes fix (hidden_size, intermediate_size,
// num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim,
// vocab_size, untied embeddings), torch_dtype, and the preset's name as
// "ckptbench_preset"; not rope, context length or token ids, which differ
// between the published models of one shape (transformers' defaults apply:
// a loader that runs the model needs the published config).
std::string LlamaConfigJson(const LlamaShape& shape, StDtype dtype,
                            std::string_view preset);

struct ModelIndex {
  uint64_t total_size = 0;  // 0: absent, or not a whole number
  // Tensor name -> file name, sorted by tensor name.
  std::vector<std::pair<std::string, std::string>> weight_map;
  // The distinct files it names, sorted.
  std::vector<std::string> files;
};

// An index read from storage (`text`, read with at most
// kMaxModelIndexBytes): hostile until checked. Its file names must be
// single names ending in ".safetensors" (CheckEntryName: none leads out of
// the model's directory), its tensor names non-empty and free of control
// characters. Errors name `file` and what was expected.
absl::StatusOr<ModelIndex> ParseModelIndex(std::string_view text,
                                           std::string_view file);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_SERVING_MODEL_FILES_H_
