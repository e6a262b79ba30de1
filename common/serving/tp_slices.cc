#include "common/serving/tp_slices.h"

#include <algorithm>
#include <numeric>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/text.h"

namespace ckpt {
namespace {

struct RoleSuffix {
  std::string_view suffix;
  TpRole role;
  size_t dims;
};

// vLLM's LlamaForCausalLM: QKVParallelLinear and MergedColumnParallelLinear
// (gate_up) are column-parallel, RowParallelLinear o_proj and down_proj,
// VocabParallelEmbedding and ParallelLMHead split the vocabulary, RMSNorm
// is replicated.
constexpr RoleSuffix kRoles[] = {
    {".self_attn.q_proj.weight", TpRole::kColumn, 2},
    {".self_attn.k_proj.weight", TpRole::kColumn, 2},
    {".self_attn.v_proj.weight", TpRole::kColumn, 2},
    {".mlp.gate_proj.weight", TpRole::kColumn, 2},
    {".mlp.up_proj.weight", TpRole::kColumn, 2},
    {".self_attn.o_proj.weight", TpRole::kRow, 2},
    {".mlp.down_proj.weight", TpRole::kRow, 2},
    {"embed_tokens.weight", TpRole::kVocab, 2},
    {"lm_head.weight", TpRole::kVocab, 2},
    {"layernorm.weight", TpRole::kReplicated, 1},
    {"model.norm.weight", TpRole::kReplicated, 1},
};

}  // namespace

std::string_view TpRoleName(TpRole role) {
  switch (role) {
    case TpRole::kColumn:
      return "column";
    case TpRole::kRow:
      return "row";
    case TpRole::kVocab:
      return "vocab";
    case TpRole::kReplicated:
      return "replicated";
    case TpRole::kUnknown:
      return "unknown";
  }
  return "unknown";
}

TpRole TpRoleOf(std::string_view name, size_t dims) {
  for (const RoleSuffix& r : kRoles) {
    if (dims == r.dims && name.ends_with(r.suffix)) return r.role;
  }
  return TpRole::kUnknown;
}

absl::StatusOr<std::vector<ByteRange>> TpSlice(const StTensor& t, TpRole role,
                                               uint64_t data_start, int tp,
                                               int rank, int owner) {
  const uint64_t at = data_start + t.begin;
  if (tp < 1 || rank < 0 || rank >= tp) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank ", rank, " of a tensor-parallel degree of ", tp));
  }
  if (role == TpRole::kReplicated || tp == 1) {
    return std::vector<ByteRange>{{at, t.Bytes()}};
  }
  if (role == TpRole::kUnknown) {
    if (rank != owner) return std::vector<ByteRange>{};
    return std::vector<ByteRange>{{at, t.Bytes()}};
  }
  const int split = role == TpRole::kRow ? 1 : 0;
  if (t.shape.size() != 2 || t.shape[split] % static_cast<uint64_t>(tp) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor '", EscapeForTerminal(t.name), "' (",
        std::string(TpRoleName(role)), "-parallel, ", t.shape.size(),
        " dimensions",
        t.shape.size() == 2
            ? absl::StrCat(", ", t.shape[split], " along dim ", split)
            : "",
        ") does not split over ", tp,
        " ranks; expected a 2-D weight whose "
        "split dimension divides by the tensor-parallel degree"));
  }
  const uint64_t elem = static_cast<uint64_t>(StDtypeBytes(t.dtype));
  const uint64_t rows = t.shape[0], cols = t.shape[1];
  const uint64_t r = static_cast<uint64_t>(rank), n = static_cast<uint64_t>(tp);
  if (split == 0) {  // contiguous rows
    const uint64_t share = rows / n * cols * elem;
    return std::vector<ByteRange>{{at + r * share, share}};
  }
  // A piece of every row: cols / tp elements at column r * cols / tp.
  if (rows > kMaxStridedRows) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor '", EscapeForTerminal(t.name), "' has ", rows,
        " rows to read a piece of; expected at most ", kMaxStridedRows));
  }
  const uint64_t piece = cols / n * elem, row = cols * elem;
  std::vector<ByteRange> out(rows);
  for (uint64_t i = 0; i < rows; ++i)
    out[i] = {at + i * row + r * piece, piece};
  return out;
}

std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const ByteRange& a, const ByteRange& b) {
              return a.offset < b.offset;
            });
  std::vector<ByteRange> out;
  for (const ByteRange& r : ranges) {
    if (r.length == 0) continue;
    if (!out.empty() && r.offset <= out.back().offset + out.back().length) {
      const uint64_t end =
          std::max(out.back().offset + out.back().length, r.offset + r.length);
      out.back().length = end - out.back().offset;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

std::vector<int> WholeFilesPerRank(const std::vector<uint64_t>& sizes,
                                   int ranks) {
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  std::vector<uint64_t> load(static_cast<size_t>(std::max(ranks, 1)), 0);
  std::vector<int> owner(sizes.size(), 0);
  for (size_t i : order) {
    const size_t least = static_cast<size_t>(
        std::min_element(load.begin(), load.end()) - load.begin());
    owner[i] = static_cast<int>(least);
    load[least] += sizes[i];
  }
  return owner;
}

}  // namespace ckpt
