// The run's look at its storage targets (RunContext): each storage owner's
// listing of a target (steps, the newest .metadata), every node's open of
// the object stores the run names, and every node's GPUs.
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dataset/dataset_options.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "coordinator/json_codec.h"
#include "coordinator/reply_check.h"
#include "coordinator/run_context.h"
#include "coordinator/steps.h"

namespace ckpt {

absl::StatusOr<StepListing> RunContext::Inspect(const std::string& uri,
                                                bool probe, bool want_metadata,
                                                size_t node,
                                                uint64_t metadata_step) {
  InspectJob job;
  job.metadata_step = metadata_step;
  job.run_id = run_id_;
  job.steps_uri = ForNode(uri, nodes_[node]->index());
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

absl::Status RunContext::CheckGpusOnEveryNode(RunResult* result) {
  for (NodeClient* n : nodes_) {
    InspectJob job;
    job.run_id = run_id_;
    job.accelerator = Accelerator::kGpu;
    job.backend = backend_;
    auto rep = n->Inspect(job);
    if (IsNodeError(rep.status())) {
      return WithPrefix(rep.status(), absl::StrCat(n->Who(), ": "));
    }
    RETURN_IF_ERROR(rep.status());
    result->notes.push_back(absl::StrCat(n->Who(), " GPUs: ", rep->gpus));
  }
  return absl::OkStatus();
}

absl::Status RunContext::OpenOnEveryNode() {
  // Every target a workload may use: an open sends nothing.
  const std::pair<std::string, std::string> targets[] = {
      {"storage.path (CKPT_DIR_PATH)", config_.StepsPath()},
      {"storage.restore_path (CKPT_RESTORE_PATH)", config_.RestorePath()},
      {"dataset.path (CKPT_DATASET_PATH)", DatasetPath(config_)}};
  std::set<std::string> opened;
  for (const auto& [key, uri] : targets) {
    if (!IsObjectStoreUri(uri) || !opened.insert(uri).second) continue;
    for (NodeClient* n : nodes_) {
      InspectJob job;
      job.run_id = run_id_;
      job.steps_uri = ForNode(uri, n->index());
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

size_t RunContext::StorageOwners() const {
  return config_.storage.node_local ? nodes_.size() : 1;
}

absl::StatusOr<std::vector<StepListing>> RunContext::InspectAll(
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

}  // namespace ckpt
