// Model presets: the tensors of a model's weights, or for the MLPerf
// Storage checkpoint workloads the published checkpoint size and its
// ZeRO parallelism. Pure data and functions; thread-safe.
#ifndef CKPTBENCH_COMMON_MODEL_PRESETS_H_
#define CKPTBENCH_COMMON_MODEL_PRESETS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/tensor_spec.h"

namespace ckpt {

// MLPerf Storage v2.0 checkpointing workload (Submission guidelines,
// Table 2): reference parallelism and checkpoint size.
struct MlperfSpec {
  int tp = 1, pp = 1, dp = 1;
  int zero_stage = 3;
  // Total checkpoint bytes. The table's "GB"/"TB" are DLIO's 1024-based
  // units; parameters = bytes / 14 (bf16 weights + fp32 master, exp_avg,
  // exp_avg_sq).
  uint64_t parameters = 0;
};

// Decoder-only Llama (HF LlamaForCausalLM, untied embeddings): the
// numbers its config.json gives.
struct LlamaShape {
  uint64_t hidden, ffn, layers, heads, kv_heads, vocab;
};

struct ModelPreset {
  std::string name;
  std::string description;
  // Weight tensors (for MLPerf presets: empty; see mlperf).
  std::vector<TensorSpec> weights;
  bool is_mlperf = false;
  MlperfSpec mlperf;
  // A Llama's attention head dimension (hidden / heads): the rows of one
  // KV head, which tensor parallelism splits k and v by; 0 for others.
  uint64_t head_dim = 0;
  // A Llama preset's shape (what its config.json says); none for others.
  std::optional<LlamaShape> llama;
};

// Builds the named preset. `num_layers` sizes the "transformer" preset.
// Unknown names fail with the list of presets and the closest match.
absl::StatusOr<ModelPreset> MakePreset(const std::string& name, int num_layers);

std::vector<std::string> PresetNames();

// A tensor element type: its name in .metadata and its size.
struct Dtype {
  const char* name;
  int bytes;
};
inline constexpr Dtype kFp32{"fp32", 4};
inline constexpr Dtype kBf16{"bf16", 2};
// A Llama's tensors, as LlamaForCausalLM names and shapes them.
std::vector<TensorSpec> LlamaTensors(const LlamaShape& s, Dtype dtype);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_MODEL_PRESETS_H_
