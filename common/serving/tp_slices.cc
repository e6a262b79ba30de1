#include "common/serving/tp_slices.h"

#include <algorithm>
#include <numeric>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/text.h"

namespace ckpt {
namespace {

std::string ShapeText(const std::vector<uint64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    absl::StrAppend(&out, i ? ", " : "", shape[i]);
  }
  return out + "]";
}

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
    {".self_attn.k_proj.weight", TpRole::kKv, 2},
    {".self_attn.v_proj.weight", TpRole::kKv, 2},
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
    case TpRole::kKv:
      return "kv";
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

namespace {

absl::Status NoSplit(const StTensor& t, TpRole role, int tp,
                     const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "tensor '", EscapeForTerminal(t.name), "' (",
      std::string(TpRoleName(role)), "-parallel, shape ", ShapeText(t.shape),
      ") does not split over ", tp, " ranks: ", why));
}

// Rows [first, last) of a 2-D tensor starting at `at`, `row_bits` each.
std::vector<ByteRange> Rows(uint64_t at, uint64_t row_bits, uint64_t first,
                            uint64_t last) {
  if (last <= first) return {};
  return {{at + first * row_bits / 8, (last - first) * row_bits / 8}};
}

// vLLM's VocabParallelEmbedding and ParallelLMHead: the vocabulary padded
// to a multiple of 64, an equal share of it per rank, the last ranks'
// shares cut at the real vocabulary.
absl::StatusOr<std::vector<ByteRange>> VocabSlice(const StTensor& t,
                                                  uint64_t at,
                                                  uint64_t row_bits, int tp,
                                                  int rank) {
  const uint64_t rows = t.shape[0], n = static_cast<uint64_t>(tp);
  const uint64_t r = static_cast<uint64_t>(rank);
  const uint64_t padded = (rows + 63) / 64 * 64;
  if (padded % n != 0) {
    return NoSplit(t, TpRole::kVocab, tp,
                   absl::StrCat("the vocabulary padded to ", padded,
                                " does not divide by it"));
  }
  const uint64_t per = padded / n;
  return Rows(at, row_bits, std::min(rows, r * per),
              std::min(rows, (r + 1) * per));
}

// vLLM's QKVParallelLinear: KV heads of `head_dim` rows split over the
// ranks, or, with more ranks than heads, each head read whole by tp /
// heads ranks.
absl::StatusOr<std::vector<ByteRange>> KvSlice(const StTensor& t, uint64_t at,
                                               uint64_t row_bits, int tp,
                                               int rank, uint64_t head_dim) {
  const uint64_t rows = t.shape[0], n = static_cast<uint64_t>(tp);
  const uint64_t r = static_cast<uint64_t>(rank);
  if (rows % head_dim != 0) {
    return NoSplit(t, TpRole::kKv, tp,
                   absl::StrCat("its rows are not heads of ", head_dim));
  }
  const uint64_t heads = rows / head_dim;
  if (n >= heads) {
    if (n % heads != 0) {
      return NoSplit(t, TpRole::kKv, tp,
                     absl::StrCat("its ", heads, " KV heads do not divide it"));
    }
    const uint64_t h = r / (n / heads);
    return Rows(at, row_bits, h * head_dim, (h + 1) * head_dim);
  }
  if (heads % n != 0) {
    return NoSplit(
        t, TpRole::kKv, tp,
        absl::StrCat("its ", heads, " KV heads do not divide by it"));
  }
  return Rows(at, row_bits, r * rows / n, (r + 1) * rows / n);
}

}  // namespace

absl::StatusOr<std::vector<ByteRange>> TpSlice(const StTensor& t, TpRole role,
                                               uint64_t data_start, int tp,
                                               int rank, int owner,
                                               uint64_t head_dim) {
  const uint64_t at = data_start + t.begin;
  if (tp < 1 || rank < 0 || rank >= tp) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank ", rank, " of a tensor-parallel degree of ", tp));
  }
  if (t.Bytes() == 0) return std::vector<ByteRange>{};
  if (role == TpRole::kReplicated || tp == 1) {
    return std::vector<ByteRange>{{at, t.Bytes()}};
  }
  if (role == TpRole::kUnknown) {
    if (rank != owner) return std::vector<ByteRange>{};
    return std::vector<ByteRange>{{at, t.Bytes()}};
  }
  if (t.shape.size() != 2) return NoSplit(t, role, tp, "expected a 2-D weight");
  const uint64_t bits = static_cast<uint64_t>(StDtypeBits(t.dtype));
  const uint64_t rows = t.shape[0], cols = t.shape[1];
  const uint64_t r = static_cast<uint64_t>(rank), n = static_cast<uint64_t>(tp);
  const uint64_t row_bits = cols * bits;
  if (row_bits % 8 != 0)
    return NoSplit(t, role, tp, "a row is not whole bytes");
  if (role == TpRole::kVocab) return VocabSlice(t, at, row_bits, tp, rank);
  if (role == TpRole::kKv && head_dim > 0) {
    return KvSlice(t, at, row_bits, tp, rank, head_dim);
  }
  if (role != TpRole::kRow) {  // column-parallel: contiguous rows
    if (rows % n != 0) {
      return NoSplit(t, role, tp, "its rows do not divide by it");
    }
    return Rows(at, row_bits, r * rows / n, (r + 1) * rows / n);
  }
  // Row-parallel: a piece of every row, cols / tp elements at r * cols / tp.
  if (cols % n != 0 || cols / n * bits % 8 != 0) {
    return NoSplit(t, role, tp, "its columns do not divide into whole bytes");
  }
  if (rows > kMaxStridedRows) {
    return NoSplit(t, role, tp,
                   absl::StrCat(rows,
                                " rows to read a piece of; expected at "
                                "most ",
                                kMaxStridedRows));
  }
  const uint64_t piece = cols / n * bits / 8, row = row_bits / 8;
  std::vector<ByteRange> out(rows);
  for (uint64_t i = 0; i < rows; ++i) {
    out[i] = {at + i * row + r * piece, piece};
  }
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
