// How a serving replica's ranks split a model's tensors, as tensor
// parallelism splits a Llama in vLLM and Megatron: column-parallel weights
// (q/k/v, gate/up projections) split their output dimension, dim 0 of the
// [out, in] weight, so a rank's share is one contiguous run of rows;
// row-parallel weights (o/down projections) split their input dimension,
// dim 1, so a rank's share is a strided run: one piece of every row;
// the vocabulary-parallel embedding and lm_head split dim 0; norms are
// replicated, read whole by every rank. A tensor of a role this does not
// know (a user's model) is read whole by one rank. Also the other split: whole
// files per rank. Pure functions; thread-safe.
#ifndef CKPTBENCH_COMMON_SERVING_TP_SLICES_H_
#define CKPTBENCH_COMMON_SERVING_TP_SLICES_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/serving/safetensors.h"

namespace ckpt {

enum class TpRole {
  kColumn,      // dim 0 split: contiguous (q, gate, up)
  kKv,          // k, v: dim 0 split by KV heads, replicated past them
  kRow,         // dim 1 split: strided
  kVocab,       // dim 0 split (embed_tokens, lm_head), padded to 64
  kReplicated,  // norms: every rank, whole
  kUnknown,     // one rank, whole
};
inline constexpr int kTpRoles = 6;

std::string_view TpRoleName(TpRole role);

// The role of a tensor by its Hugging Face Llama name and its dimensions:
// "...q_proj.weight" (2-D) is column-parallel, "...o_proj.weight" row-,
// "model.embed_tokens.weight" vocabulary-, "...input_layernorm.weight"
// (1-D) replicated; anything else unknown.
TpRole TpRoleOf(std::string_view name, size_t dims);

// A run of a file's bytes: [offset, offset + length).
struct ByteRange {
  uint64_t offset = 0, length = 0;
  bool operator==(const ByteRange&) const = default;
};

// The most rows of a row-parallel tensor, each a range of its own (a
// 70B's down_proj has 8192; a hostile header could claim billions).
inline constexpr uint64_t kMaxStridedRows = 1 << 22;

// The byte ranges of the file (whose tensor data starts at `data_start`)
// that rank `rank` of `tp` reads of `t` in role `role`, in file order, as
// vLLM shards a Llama: column rows [r, r+1) x rows / tp; k and v by KV
// heads of `head_dim` rows (0: unknown, then as column), each head read by
// tp / heads ranks when there are more ranks than heads; the vocabulary
// padded to a multiple of 64, rank r its r-th share, cut at the real
// vocabulary; row-parallel the r-th piece of every row. An unknown tensor
// is read by rank `owner` only; a tensor of no bytes by none. A shape that
// does not split so is an error naming the tensor.
absl::StatusOr<std::vector<ByteRange>> TpSlice(const StTensor& t, TpRole role,
                                               uint64_t data_start, int tp,
                                               int rank, int owner,
                                               uint64_t head_dim = 0);

// `ranges` sorted by offset, each run of touching or overlapping ranges
// joined into one.
std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges);

// Whole files per rank: file i's rank, the files (of `sizes` bytes) placed
// largest first on the rank with the fewest bytes so far (ties: the lower
// rank), so that the ranks' shares differ by at most the largest file.
std::vector<int> WholeFilesPerRank(const std::vector<uint64_t>& sizes,
                                   int ranks);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_SERVING_TP_SLICES_H_
