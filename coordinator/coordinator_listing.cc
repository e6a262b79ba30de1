// The coordinator's look at the storage before it saves or loads: each
// storage owner's listing (steps, the newest .metadata), node-local disks
// matched to the indexes that saved on them, and the .metadata a load
// restores, checked against this run; and every node's open of the object
// stores the run names.
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "coordinator/checkpoint/disk_match.h"
#include "coordinator/coordinator.h"
#include "coordinator/dataset/dataset_preflight.h"
#include "coordinator/json_codec.h"
#include "coordinator/reply_check.h"
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

absl::StatusOr<StepListing> Coordinator::Inspect(const std::string& uri,
                                                 bool probe, bool want_metadata,
                                                 size_t node,
                                                 uint64_t metadata_step) {
  InspectJob job;
  job.metadata_step = metadata_step;
  job.run_id = run_id_;
  job.checkpoints_uri = ForNode(uri, nodes_[node]->index());
  job.probe_write = probe;
  job.want_metadata = want_metadata;
  job.backend = backend_;
  auto listed = nodes_[node]->Inspect(job);
  if (IsNodeError(listed.status())) {
    std::string where = config_.storage.node_local
                            ? absl::StrCat(" on node ", nodes_[node]->index(),
                                           " (", nodes_[node]->host(), ")")
                            : "";
    // The node's kind decides: a bucket that does not exist is bad input,
    // a store that answers 503 is not.
    return WithPrefix(listed.status(), absl::StrCat(uri, where, ": "));
  }
  ASSIGN_OR_RETURN(Inspection found, std::move(listed));
  const std::string dir = ForNode(uri, nodes_[node]->index());
  for (const auto& name : found.listing.ignored) {
    ignored_steps_.insert(JoinPath(dir, name));
  }
  for (const auto& [step, committed] : found.listing.steps) {
    if (committed || written_steps_.count(step)) continue;
    partial_steps_.insert(StepUri(dir, step));
  }
  return std::move(found.listing);
}

absl::Status Coordinator::PreflightDataset() {
  if (!LooksAtDataset(config_)) return absl::OkStatus();
  std::vector<DatasetLook> looks;
  std::vector<std::string> uris;
  for (size_t i = 0; i < StorageOwners(); ++i) {
    InspectJob job;
    job.run_id = run_id_;
    job.dataset_uri = ForNode(config_.DatasetPath(), nodes_[i]->index());
    job.backend = backend_;
    auto look = nodes_[i]->Inspect(job);
    if (IsNodeError(look.status())) {
      return WithPrefix(look.status(),
                        absl::StrCat("dataset.path (CKPT_DATASET_PATH) ",
                                     job.dataset_uri, " is not usable: "));
    }
    RETURN_IF_ERROR(look.status());
    looks.push_back(std::move(look->dataset));
    uris.push_back(job.dataset_uri);
  }
  return CheckDatasetBeforeRun(config_, looks, uris, nodes_.size());
}

absl::Status Coordinator::OpenOnEveryNode() {
  // Every target a workload may use: an open sends nothing.
  const std::pair<std::string, std::string> targets[] = {
      {"storage.path (CKPT_DIR_PATH)", config_.CheckpointsPath()},
      {"storage.restore_path (CKPT_RESTORE_PATH)", config_.RestorePath()},
      {"dataset.path (CKPT_DATASET_PATH)", config_.DatasetPath()}};
  std::set<std::string> opened;
  for (const auto& [key, uri] : targets) {
    if (!IsObjectStoreUri(uri) || !opened.insert(uri).second) continue;
    for (NodeClient* n : nodes_) {
      InspectJob job;
      job.run_id = run_id_;
      job.checkpoints_uri = ForNode(uri, n->index());
      job.backend = backend_;
      job.open_only = true;
      auto opens = n->Inspect(job);
      if (IsNodeError(opens.status())) {
        return WithPrefix(
            opens.status(),
            absl::StrCat(key, " is not usable: ", n->Who(), ": "));
      }
      RETURN_IF_ERROR(opens.status());
    }
  }
  return absl::OkStatus();
}

size_t Coordinator::StorageOwners() const {
  return config_.storage.node_local ? nodes_.size() : 1;
}

absl::StatusOr<std::vector<StepListing>> Coordinator::InspectAll(
    const std::string& uri, bool probe, bool want_metadata,
    uint64_t metadata_step) {
  std::vector<StepListing> out;
  for (size_t i = 0; i < StorageOwners(); ++i) {
    ASSIGN_OR_RETURN(auto rep,
                     Inspect(uri, probe, want_metadata, i, metadata_step));
    out.push_back(std::move(rep));
  }
  return out;
}

absl::Status Coordinator::MatchDisks(std::vector<StepListing>* listings,
                                     const std::string& dir,
                                     RunResult* result) {
  if (!config_.storage.node_local) return absl::OkStatus();
  ASSIGN_OR_RETURN(DiskMatch m,
                   MatchDisksToIndexes(plan_, *listings, nodes_, dir));
  if (m.identity) return absl::OkStatus();
  std::vector<NodeClient*> nodes;
  std::vector<StepListing> ordered;
  for (size_t j : m.order) {
    nodes.push_back(nodes_[j]);
    ordered.push_back(std::move((*listings)[j]));
  }
  {
    std::lock_guard<std::mutex> lock(interrupt_mu_);  // Interrupt reads them
    nodes_ = std::move(nodes);
  }
  *listings = std::move(ordered);
  std::string note = absl::StrCat(
      "node-local disks: the nodes are not on the machines their indexes "
      "saved on; each loads what its own disk holds: ",
      absl::StrJoin(m.moves, "; "));
  LOG_INFO("%s", note);
  result->notes.push_back(std::move(note));
  return absl::OkStatus();
}

absl::StatusOr<CheckpointMetadata> Coordinator::CheckedMetadata(
    const std::vector<StepListing>& listings, const std::string& dir) {
  CheckpointMetadata merged;
  for (size_t i = 0; i < listings.size(); ++i) {
    const auto& l = listings[i];
    if (l.metadata_step == 0) continue;
    std::string where =
        absl::StrCat(StepUri(dir, l.metadata_step), "/.metadata");
    if (config_.storage.node_local) {
      absl::StrAppend(&where, " on node ", nodes_[i]->index(), " (",
                      nodes_[i]->host(), ")");
    }
    ASSIGN_OR_RETURN(auto meta, ParseMetadata(l.newest_metadata, where));
    ASSIGN_OR_RETURN(const bool resharded,
                     CheckLoadable(meta, plan_, config_, where));
    // Every planned segment this storage owner holds needs its checksum:
    // a load of segments without one would verify nothing. (A resharded
    // restore checks every byte against the writer's regenerated bytes
    // instead.)
    if (!resharded) {
      RETURN_IF_ERROR(CheckSums(
          meta, plan_, config_.storage.node_local ? static_cast<int>(i) : -1,
          where));
    }
    auto sums = std::move(meta.sums);
    if (merged.fingerprint.empty()) merged = std::move(meta);
    merged.sums.insert(sums.begin(), sums.end());
  }
  return merged;
}

}  // namespace ckpt
