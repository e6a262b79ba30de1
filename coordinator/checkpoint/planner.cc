#include "coordinator/checkpoint/planner.h"

#include <algorithm>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/bytes.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/checksum.h"
#include "common/memory.h"
#include "common/model_presets.h"
#include "common/status_macros.h"

namespace ckpt {
namespace {

// One piece of a tensor owned by a rank, before it is placed in files.
struct Piece {
  uint32_t tensor;
  uint64_t offset;
  uint64_t length;
};

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Appends rank `r`'s chunk of every tensor in `which` when each tensor is
// split evenly (by elements) across `parts` ranks and r is part `part`.
void AddEvenChunks(const std::vector<TensorSpec>& tensors,
                   const std::vector<uint32_t>& which, uint64_t parts,
                   uint64_t part, std::vector<Piece>* out) {
  for (uint32_t t : which) {
    const TensorSpec& spec = tensors[t];
    uint64_t n = spec.Elements();
    uint64_t chunk = CeilDiv(n, parts);
    uint64_t start = std::min(n, part * chunk);
    uint64_t end = std::min(n, start + chunk);
    if (end > start) {
      uint64_t b = static_cast<uint64_t>(spec.dtype_bytes);
      out->push_back({t, start * b, (end - start) * b});
    }
  }
}

std::vector<FilePlan> PlaceInFiles(uint32_t rank,
                                   const std::vector<Piece>& pieces,
                                   int thread_count) {
  uint64_t total = 0;
  for (const auto& p : pieces) total += p.length;
  std::vector<FilePlan> files;
  if (total == 0) return files;
  // Equal files, cut on 4 KiB boundaries so O_DIRECT stays aligned.
  uint64_t target = CeilDiv(CeilDiv(total, thread_count), 4096) * 4096;
  size_t pi = 0;
  uint64_t used = 0;  // bytes of pieces[pi] already placed
  for (uint32_t k = 0;
       k < static_cast<uint32_t>(thread_count) && pi < pieces.size(); ++k) {
    FilePlan f;
    f.index = k;
    f.name = ShardFileName(rank, k);
    while (pi < pieces.size() && f.size < target) {
      const Piece& p = pieces[pi];
      uint64_t take = std::min(p.length - used, target - f.size);
      f.segments.push_back({p.tensor, p.offset + used, take, f.size});
      f.size += take;
      used += take;
      if (used == p.length) {
        ++pi;
        used = 0;
      }
    }
    files.push_back(std::move(f));
  }
  return files;
}

// What the checkpoint holds: the model's tensors, their dtypes and sizes.
// World size and files per rank are not part of it: a resharded restore
// loads the same tensors saved by another number of ranks.
std::string Fingerprint(const CheckpointPlan& plan) {
  std::string canon = absl::StrCat(plan.model, "|", plan.parameters, "|");
  for (const auto& t : plan.tensors) {
    absl::StrAppend(&canon, t.name, ":", t.dtype, ":", t.Bytes(), ":",
                    absl::StrJoin(t.shape, "x"), ";");
  }
  return absl::StrFormat("%016x", Xxh3(canon.data(), canon.size()));
}

// How it lies on storage: world, files per rank, sharding, and every
// file's segments.
std::string Layout(const CheckpointPlan& plan) {
  std::vector<uint64_t> layout = {
      static_cast<uint64_t>(plan.world_size),
      static_cast<uint64_t>(plan.thread_count),
      Xxh3(plan.sharding.data(), plan.sharding.size())};
  for (const auto& r : plan.ranks) {
    for (const auto& f : r.files) {
      layout.push_back(r.rank);
      layout.push_back(f.index);
      layout.push_back(f.size);
      for (const auto& s : f.segments) {
        layout.push_back(s.tensor);
        layout.push_back(s.tensor_offset);
        layout.push_back(s.length);
      }
    }
  }
  return absl::StrFormat("%016x",
                         Xxh3(layout.data(), layout.size() * sizeof(uint64_t)));
}

}  // namespace

PlanOptions PlanOptionsFromConfig(const Config& c) {
  PlanOptions o;
  o.model = c.model.name;
  o.num_layers = c.model.num_layers;
  o.optimizer = c.model.optimizer;
  o.num_nodes = c.cluster.num_nodes;
  o.ranks_per_node = c.RanksPerNode();
  o.thread_count = CheckpointOf(c).sharding.thread_count;
  o.strategy = CheckpointOf(c).sharding.strategy;
  return o;
}

absl::Status CheckPlanBounds(const PlanOptions& o, const MemoryBudget& budget) {
  if (o.num_layers < 1 || o.num_nodes < 1 || o.ranks_per_node < 1 ||
      o.thread_count < 1) {
    return absl::InvalidArgumentError(
        "NUM_LAYERS, NUM_NODES, NUM_DEVICES and thread_count must be >= 1");
  }
  // The preset's tensors grow linearly with its layers: count them from two
  // small builds instead of building a huge one.
  auto one = MakePreset(o.model, 1), two = MakePreset(o.model, 2);
  if (!one.ok() || !two.ok()) return absl::OkStatus();  // MakePlan says why
  const double per_layer =
      static_cast<double>(two->weights.size()) - one->weights.size();
  const double state = o.optimizer == Optimizer::kAdam  ? 3
                       : o.optimizer == Optimizer::kSgd ? 2
                                                        : 1;
  const double tensors =
      one->is_mlperf
          ? 2
          : (one->weights.size() + per_layer * (o.num_layers - 1)) * state;
  const double world =
      static_cast<double>(o.num_nodes) * static_cast<double>(o.ranks_per_node);
  const bool hybrid =
      o.strategy == ShardingStrategy::kHybrid && !one->is_mlperf;
  // The ranks that write: all of them, or node 0's under hybrid sharding.
  const double writers = hybrid ? o.ranks_per_node : world;
  // At most one piece of each tensor per writing rank, and thread_count - 1
  // more where a rank's files cut its pieces.
  const double segments = tensors * writers + writers * o.thread_count;
  const double memory = segments * kPlanBytesPerSegment;
  const double metadata = segments * kMetadataBytesPerSegment;
  const double usable = static_cast<double>(budget.available_bytes) * 0.8;
  const bool too_big_for_memory = budget.available_bytes > 0 && memory > usable;
  const bool too_big_metadata =
      metadata > static_cast<double>(kMaxMetadataBytes);
  if (!too_big_for_memory && !too_big_metadata) return absl::OkStatus();
  // Only the knobs that change this preset's plan.
  std::vector<std::string> knobs;
  if (per_layer > 0 && !one->is_mlperf) {
    knobs.push_back(
        absl::StrCat("fewer layers (NUM_LAYERS=", o.num_layers, ")"));
  }
  knobs.push_back(
      absl::StrFormat("fewer ranks (NUM_NODES x NUM_DEVICES = %.0f)", world));
  if (o.thread_count > 1) {
    knobs.push_back(absl::StrCat(
        "fewer files per rank (thread_count=", o.thread_count, ")"));
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "this plan would hold about %.4g segments (%.4g tensors x %.4g writing "
      "ranks): about %s of memory for the coordinator (%s) and a %s "
      ".metadata (at most %s). Expected %s",
      segments, tensors, writers, FormatBytes(static_cast<uint64_t>(memory)),
      budget.available_bytes > 0
          ? absl::StrCat(FormatBytes(budget.available_bytes), " available, ",
                         budget.source)
          : std::string("available memory unknown"),
      FormatBytes(static_cast<uint64_t>(metadata)),
      FormatBytes(kMaxMetadataBytes), absl::StrJoin(knobs, ", ")));
}

namespace {

// rank -> its pieces, in file order.
using RankPieces = std::vector<std::vector<Piece>>;

// An MLPerf preset: its fixed model and optimizer state, laid out as the
// reference run's TP x PP x DP (or a subset, or open scaling).
absl::Status PlanMlperf(const ModelPreset& preset, const PlanOptions& o,
                        CheckpointPlan* out, RankPieces* out_pieces) {
  CheckpointPlan& plan = *out;
  RankPieces& pieces = *out_pieces;
  const uint64_t world = static_cast<uint64_t>(plan.world_size);
  if (o.optimizer != Optimizer::kAdam) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model.optimizer (CKPT_OPTIMIZER) = '", std::string(Name(o.optimizer)),
        "': the MLPerf "
        "preset ",
        o.model,
        " has a fixed size that includes Adam state; "
        "expected adam"));
  }
  const MlperfSpec& m = preset.mlperf;
  plan.parameters = m.parameters;
  plan.tensors.push_back(
      {"model_states", kBf16.name, kBf16.bytes, {m.parameters}});
  plan.tensors.push_back(
      {"optim_states", kFp32.name, kFp32.bytes, {3 * m.parameters}});
  const uint64_t mp = static_cast<uint64_t>(m.tp * m.pp);
  const uint64_t ref_world = mp * static_cast<uint64_t>(m.dp);
  uint64_t layout_world = ref_world;
  if (world < ref_world) {
    plan.notes.push_back(absl::StrCat(
        "MLPerf subset mode: these ", world, " ranks write ranks 0..",
        world - 1, " of the ", ref_world, "-rank reference layout (",
        absl::StrFormat("%.4g", 100.0 * static_cast<double>(world) /
                                    static_cast<double>(ref_world)),
        "% of the ranks)"));
  } else {
    if (world % mp != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("NUM_NODES x NUM_DEVICES = ", world, ": ", o.model,
                       " needs fewer than ", ref_world,
                       " ranks (subset mode) or a "
                       "multiple of TPxPP = ",
                       mp));
    }
    layout_world = world;
    if (world > ref_world) {
      plan.notes.push_back(absl::StrCat(
          "MLPerf open scaling: DP = ", world / mp, " instead of ", m.dp));
    }
  }
  plan.sharding = absl::StrCat("zero", m.zero_stage, " tp=", m.tp, " pp=", m.pp,
                               " dp=", layout_world / mp);
  for (uint64_t r = 0; r < world; ++r) {
    if (m.zero_stage >= 3) {
      AddEvenChunks(plan.tensors, {0}, layout_world, r, &pieces[r]);
    } else if (r < mp) {
      // ZeRO-1: weights sharded by TP x PP; only data-parallel rank 0
      // (ranks 0..TPxPP-1) writes them.
      AddEvenChunks(plan.tensors, {0}, mp, r, &pieces[r]);
    }
    AddEvenChunks(plan.tensors, {1}, layout_world, r, &pieces[r]);
  }
  return absl::OkStatus();
}

// A preset of weights: each with its optimizer state, sharded over all
// ranks (full) or node 0's (hybrid).
void PlanWeights(const ModelPreset& preset, const PlanOptions& o,
                 CheckpointPlan* out, RankPieces* out_pieces) {
  CheckpointPlan& plan = *out;
  RankPieces& pieces = *out_pieces;
  const uint64_t world = static_cast<uint64_t>(plan.world_size);
  plan.tensors = preset.weights;
  for (const auto& t : preset.weights) plan.parameters += t.Elements();
  const size_t n_weights = plan.tensors.size();
  for (size_t i = 0; i < n_weights; ++i) {
    TensorSpec w = plan.tensors[i];
    auto add_state = [&](const std::string& suffix) {
      TensorSpec s = w;
      s.name = absl::StrCat("optim.", w.name, ".", suffix);
      s.dtype = "fp32";
      s.dtype_bytes = 4;
      plan.tensors.push_back(s);
    };
    if (o.optimizer == Optimizer::kAdam) {
      add_state("exp_avg");
      add_state("exp_avg_sq");
    } else if (o.optimizer == Optimizer::kSgd) {
      add_state("momentum_buffer");
    }
  }
  std::vector<uint32_t> all(plan.tensors.size());
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  if (o.strategy == ShardingStrategy::kHybrid) {
    const uint64_t rpn = static_cast<uint64_t>(o.ranks_per_node);
    plan.sharding = absl::StrCat("hybrid: sharded over ", rpn,
                                 " ranks of node 0, replicated on ",
                                 o.num_nodes, " node(s)");
    for (uint64_t r = 0; r < rpn; ++r) {
      AddEvenChunks(plan.tensors, all, rpn, r, &pieces[r]);
    }
  } else {
    plan.sharding = absl::StrCat("fsdp-full: sharded over ", world, " ranks");
    for (uint64_t r = 0; r < world; ++r) {
      AddEvenChunks(plan.tensors, all, world, r, &pieces[r]);
    }
  }
}

// Each rank's files from its pieces; the byte totals.
void PlaceRanks(const PlanOptions& o, const RankPieces& pieces,
                CheckpointPlan* out) {
  CheckpointPlan& plan = *out;
  const uint64_t world = static_cast<uint64_t>(plan.world_size);
  for (const auto& t : plan.tensors) {
    if (absl::StartsWith(t.name, "optim")) {
      plan.optimizer_bytes += t.Bytes();
    } else {
      plan.weight_bytes += t.Bytes();
    }
  }
  plan.ranks.resize(world);
  for (uint64_t r = 0; r < world; ++r) {
    RankPlan& rp = plan.ranks[r];
    rp.rank = static_cast<uint32_t>(r);
    rp.node =
        static_cast<uint32_t>(r / static_cast<uint64_t>(o.ranks_per_node));
    rp.files = PlaceInFiles(rp.rank, pieces[r], o.thread_count);
    for (const auto& f : rp.files) rp.bytes += f.size;
    plan.total_bytes += rp.bytes;
  }
}

}  // namespace

absl::StatusOr<CheckpointPlan> MakePlan(const PlanOptions& o) {
  return MakePlan(o, AvailableMemory());
}

absl::StatusOr<CheckpointPlan> MakePlan(const PlanOptions& o,
                                        const MemoryBudget& budget) {
  RETURN_IF_ERROR(CheckPlanBounds(o, budget));
  auto preset_or = MakePreset(o.model, o.num_layers);
  if (!preset_or.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model.name (CKPT_MODEL) = '", o.model,
                     "': ", preset_or.status().message()));
  }
  const ModelPreset& preset = *preset_or;
  CheckpointPlan plan;
  plan.model = o.model;
  plan.description = preset.description;
  plan.num_nodes = o.num_nodes;
  plan.ranks_per_node = o.ranks_per_node;
  plan.world_size = o.num_nodes * o.ranks_per_node;
  plan.thread_count = o.thread_count;
  RankPieces pieces(static_cast<uint64_t>(plan.world_size));
  if (preset.is_mlperf) {
    RETURN_IF_ERROR(PlanMlperf(preset, o, &plan, &pieces));
  } else {
    PlanWeights(preset, o, &plan, &pieces);
  }
  PlaceRanks(o, pieces, &plan);
  plan.fingerprint = Fingerprint(plan);
  plan.layout = Layout(plan);
  return plan;
}

std::string DescribePlan(const CheckpointPlan& plan, bool per_rank) {
  std::string s;
  absl::StrAppendFormat(&s, "model        %s\n", plan.model);
  absl::StrAppendFormat(&s, "             %s\n", plan.description);
  absl::StrAppendFormat(&s, "parameters   %d (%.3f B)\n", plan.parameters,
                        static_cast<double>(plan.parameters) / 1e9);
  absl::StrAppendFormat(&s, "tensors      %d (weights %s, optimizer %s)\n",
                        plan.tensors.size(), FormatBytes(plan.weight_bytes),
                        FormatBytes(plan.optimizer_bytes));
  absl::StrAppendFormat(&s, "world        %d = %d node(s) x %d rank(s)\n",
                        plan.world_size, plan.num_nodes, plan.ranks_per_node);
  absl::StrAppendFormat(&s, "sharding     %s\n", plan.sharding);
  absl::StrAppendFormat(&s, "files        %d (thread_count %d per rank)\n",
                        plan.FileCount(), plan.thread_count);
  absl::StrAppendFormat(&s, "bytes        %d (%s) per checkpoint\n",
                        plan.total_bytes, FormatBytes(plan.total_bytes));
  uint64_t max_rank = 0, min_rank = UINT64_MAX;
  for (const auto& r : plan.ranks) {
    max_rank = std::max(max_rank, r.bytes);
    min_rank = std::min(min_rank, r.bytes);
  }
  absl::StrAppendFormat(&s, "per rank     min %s, max %s\n",
                        FormatBytes(min_rank), FormatBytes(max_rank));
  // What one node writes per checkpoint: what its disk must hold per step
  // when each node writes its own ranks' files (node-local storage).
  std::map<int, uint64_t> per_node;
  for (const auto& r : plan.ranks) per_node[r.node] += r.bytes;
  uint64_t max_node = 0;
  for (const auto& [node, bytes] : per_node)
    max_node = std::max(max_node, bytes);
  absl::StrAppendFormat(&s, "per node     max %d (%s) per checkpoint\n",
                        max_node, FormatBytes(max_node));
  for (const auto& n : plan.notes)
    absl::StrAppendFormat(&s, "note         %s\n", n);
  absl::StrAppendFormat(&s, "fingerprint  %s (layout %s)\n", plan.fingerprint,
                        plan.layout);
  if (per_rank) {
    s += "rank  node  bytes            files\n";
    for (const auto& r : plan.ranks) {
      absl::StrAppendFormat(&s, "%-5d %-5d %-16d", r.rank, r.node, r.bytes);
      for (const auto& f : r.files)
        absl::StrAppendFormat(&s, " %s(%d)", f.name, f.size);
      s += "\n";
    }
  }
  return s;
}

}  // namespace ckpt
