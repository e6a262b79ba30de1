// The checkpoint's look at a restore path before it loads: node-local
// disks matched to the indexes that saved on them, and the .metadata a
// load restores, checked against this run's plan and configuration.
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "coordinator/checkpoint/checkpoint_run.h"
#include "coordinator/checkpoint/disk_match.h"
#include "coordinator/checkpoint/metadata_json.h"
#include "coordinator/steps.h"

namespace ckpt {

namespace {

// Whether the checkpoint `meta` describes (read from `where`) can be
// loaded by this run: the same model, bytes of this version's generator,
// the same seed and checksum kind; true when it is in another layout (a
// resharded restore), which node-local storage cannot serve.
absl::StatusOr<bool> CheckLoadable(const CheckpointMetadata& meta,
                                   const CheckpointPlan& plan,
                                   const Config& config,
                                   const std::string& where) {
  // Only what differs: two identical descriptions side by side (same
  // model name and world, other NUM_LAYERS) told the user nothing.
  std::vector<std::string> diffs;
  auto differs = [&](const char* what, const auto& theirs, const auto& ours) {
    if (theirs != ours) {
      diffs.push_back(
          absl::StrCat(what, " ", theirs, " (this run: ", ours, ")"));
    }
  };
  if (meta.fingerprint != plan.fingerprint) {
    differs("model", meta.model, plan.model);
    differs("parameters", meta.parameters, plan.parameters);
    if (diffs.empty()) {
      diffs.push_back(absl::StrCat("tensors: fingerprint ", meta.fingerprint,
                                   " (this run: ", plan.fingerprint, ")"));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        where,
        " is a checkpoint of a different model: ", absl::StrJoin(diffs, "; "),
        ". Expected CKPT_RESTORE_PATH to hold a checkpoint of this model, "
        "or none (then one is staged)"));
  }
  // Bytes from another generator verify against their own sums, but a
  // mismatch's location, and any read that regenerates bytes, would be
  // wrong.
  if (meta.pattern != kPatternName) {
    return absl::FailedPreconditionError(absl::StrCat(
        where, " holds bytes made by ",
        meta.pattern.empty() ? std::string("an older ckptbench's generator")
                             : absl::StrCat("generator '", meta.pattern, "'"),
        "; this version generates '", kPatternName,
        "'. Expected a checkpoint saved by this version: delete that step "
        "or use another CKPT_RESTORE_PATH"));
  }
  // The bytes were generated from the seed and are checked with the
  // checksum kind: a load configured otherwise would time another check.
  differs("seed", meta.seed, config.run.seed);
  differs("io.checksum", meta.checksum, std::string(Name(config.io.checksum)));
  if (!diffs.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        where, " was saved with ", absl::StrJoin(diffs, "; "),
        ". Expected the same seed and checksum kind as the save (set them "
        "to the checkpoint's) or another CKPT_RESTORE_PATH"));
  }
  // Another layout of the same model: a resharded restore (RunLoads),
  // reading the saved files by the .metadata's map of them. Node-local
  // disks hold only their node's files, so it needs shared storage.
  const bool resharded = meta.layout != plan.layout;
  if (resharded && config.storage.node_local) {
    differs("world", meta.world_size, plan.world_size);
    differs("thread_count", meta.thread_count, plan.thread_count);
    differs("sharding", meta.sharding, plan.sharding);
    if (diffs.empty()) {
      diffs.push_back(absl::StrCat("layout ", meta.layout,
                                   " (this run: ", plan.layout, ")"));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        where, " holds this model's tensors in another layout: ",
        absl::StrJoin(diffs, "; "),
        ". A resharded restore reads other ranks' files, which "
        "storage.node_local=true keeps on other nodes' disks; expected "
        "shared storage, or a checkpoint saved with this world size, "
        "thread_count and sharding"));
  }
  return resharded;
}

// OK when `meta` has a checksum for every planned segment (of node `node`'s
// ranks only, when >= 0: a node-local disk's).
absl::Status CheckSums(const CheckpointMetadata& meta,
                       const CheckpointPlan& plan, int node,
                       const std::string& where) {
  uint64_t missing = 0, planned = 0;
  std::string first;
  for (const auto& r : plan.ranks) {
    if (node >= 0 && r.node != static_cast<uint32_t>(node)) continue;
    for (const auto& f : r.files) {
      for (size_t k = 0; k < f.segments.size(); ++k) {
        ++planned;
        if (meta.sums.count({r.rank, f.index, static_cast<uint32_t>(k)}))
          continue;
        if (missing++ == 0) first = absl::StrCat(f.name, " segment ", k);
      }
    }
  }
  if (missing == 0) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrCat(where, " has no checksum for ", missing, " of the ", planned,
                   " planned segments (first: ", first,
                   "): expected one per segment, as every save records"));
}

}  // namespace

absl::Status MatchDisks(RunContext& ctx, const CheckpointPlan& plan,
                        std::vector<StepListing>* listings,
                        const std::string& dir, RunResult* result) {
  if (!ctx.config().storage.node_local) return absl::OkStatus();
  ASSIGN_OR_RETURN(DiskMatch m,
                   MatchDisksToIndexes(plan, *listings, ctx.nodes(), dir));
  if (m.identity) return absl::OkStatus();
  std::vector<StepListing> ordered;
  for (size_t j : m.order) ordered.push_back(std::move((*listings)[j]));
  ctx.ReorderNodes(m.order);
  *listings = std::move(ordered);
  std::string note = absl::StrCat(
      "node-local disks: the nodes are not on the machines their indexes "
      "saved on; each loads what its own disk holds: ",
      absl::StrJoin(m.moves, "; "));
  LOG_INFO("%s", note);
  result->notes.push_back(std::move(note));
  return absl::OkStatus();
}

absl::StatusOr<CheckpointMetadata> CheckedMetadata(
    const RunContext& ctx, const CheckpointPlan& plan,
    const std::vector<StepListing>& listings, const std::string& dir) {
  const Config& config = ctx.config();
  const auto& nodes = ctx.nodes();
  CheckpointMetadata merged;
  for (size_t i = 0; i < listings.size(); ++i) {
    const auto& l = listings[i];
    if (l.metadata_step == 0) continue;
    std::string where =
        absl::StrCat(StepUri(dir, l.metadata_step), "/.metadata");
    if (config.storage.node_local) {
      absl::StrAppend(&where, " on node ", nodes[i]->index(), " (",
                      nodes[i]->host(), ")");
    }
    ASSIGN_OR_RETURN(auto meta, ParseMetadata(l.newest_metadata, where));
    ASSIGN_OR_RETURN(const bool resharded,
                     CheckLoadable(meta, plan, config, where));
    // Every planned segment this storage owner holds needs its checksum:
    // a load of segments without one would verify nothing. (A resharded
    // restore checks every byte against the writer's regenerated bytes
    // instead.)
    if (!resharded) {
      RETURN_IF_ERROR(CheckSums(
          meta, plan, config.storage.node_local ? static_cast<int>(i) : -1,
          where));
    }
    auto sums = std::move(meta.sums);
    if (merged.fingerprint.empty()) merged = std::move(meta);
    merged.sums.insert(sums.begin(), sums.end());
  }
  return merged;
}

}  // namespace ckpt
