// The checkpoint's storage steps on a node outside its rounds: listing
// steps and reading a .metadata (Inspect), the commit point, claims,
// cleanup, and writing a run's result.json; and the run's backends
// (StorageSet), which the rounds' workloads open their storage through.
// A round's phase is the checkpoint workload's (checkpoint_workload.h).
// Thread-safe.
#ifndef CKPTBENCH_NODE_NODE_AGENT_H_
#define CKPTBENCH_NODE_NODE_AGENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config.h"
#include "common/inspection.h"
#include "common/step_layout.h"
#include "node/storage/storage_factory.h"

namespace ckpt {

class NodeAgent {
 public:
  // Takes the process's descriptor reserve for clean-up (fd_reserve.h).
  // mem:// locations are files in `memory` (StorageSet).
  explicit NodeAgent(std::shared_ptr<MemoryStore> memory = nullptr);
  NodeAgent(const NodeAgent&) = delete;
  NodeAgent& operator=(const NodeAgent&) = delete;

  // Lists step-<n> directories under steps_uri (empty if missing).
  // With a `probe_owner` (a run id), first creates the directory and writes
  // and removes a probe file of that run's own there (PermissionDenied etc.
  // naming the path). The .metadata returned is the newest committed
  // step's, or `metadata_step`'s when not 0.
  absl::StatusOr<StepListing> Inspect(const std::string& steps_uri,
                                      const std::string& probe_owner = "",
                                      bool want_metadata = true,
                                      uint64_t metadata_step = 0,
                                      const BackendOptions& options = {});

  // Writes the step's .metadata (the commit point) durably.
  absl::Status Commit(const std::string& step_uri, const std::string& metadata,
                      const BackendOptions& options = {});
  // A small file `name` in `dir_uri`, whole or not at all, durably (the
  // commit's .metadata, a run's result.json, a dataset's manifest: `root`
  // kAsGiven for the last two); and whether one is there.
  absl::Status WriteFile(const std::string& dir_uri, const std::string& name,
                         const std::string& data, const BackendOptions& options,
                         LocationRoot root = LocationRoot::kDefault);
  absl::StatusOr<bool> FileExists(const std::string& dir_uri,
                                  const std::string& name,
                                  const BackendOptions& options);
  // Claims step `step` under steps_uri for run `owner`
  // (Storage::ClaimDir): the claim entry's name, or AlreadyExists when
  // something holds the step. ReleaseClaim removes a claim this run won.
  absl::StatusOr<std::string> Claim(const std::string& steps_uri, uint64_t step,
                                    const std::string& owner,
                                    const BackendOptions& options);
  absl::Status ReleaseClaim(const std::string& steps_uri, uint64_t step,
                            const std::string& claim_name,
                            const BackendOptions& options);
  // Removes, in each of `steps`, the .metadata and the named entries (what
  // this run wrote there), and the step directory if that emptied it.
  // With `abort_uploads`, first aborts those names' unfinished uploads
  // (Storage::AbortUploads), counted into *aborted. With `run_id`, a step
  // whose claim entry holds another run's id is not touched (an error
  // names it): the step was swapped or taken since this run wrote it.
  absl::Status Cleanup(const std::string& steps_uri,
                       const std::vector<uint64_t>& steps,
                       const std::vector<std::string>& names,
                       const BackendOptions& options = {},
                       bool abort_uploads = false, int* aborted = nullptr,
                       const std::string& run_id = "");
  // The run's backends, which the rounds' workloads open theirs through.
  StorageSet& storage() { return storage_; }

  // `uri` on this agent's backends (StorageSet::Open): what the
  // coordinator's time-to-visible poll reads with.
  absl::StatusOr<StorageLocation> OpenStorageAt(
      const std::string& uri, const BackendOptions& options,
      LocationRoot root = LocationRoot::kDefault) {
    return storage_.Open(uri, options, root);
  }

 private:
  StorageSet storage_;  // the run's backends and their counters
};

// OK when `step_dir` holds no claim entry or one holding `run_id`; else
// FailedPrecondition naming the step and the claim's holder (escaped).
absl::Status CheckClaimIsOurs(Storage& storage, const std::string& step_dir,
                              const std::string& run_id);

// Checks that `dir` can be written: creates it, writes and removes a probe
// file named for `owner` (a run id). On failure the directories it made
// are removed again (only empty ones).
absl::Status ProbeWrite(Storage& storage, const std::string& dir,
                        const std::string& owner);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_NODE_AGENT_H_
