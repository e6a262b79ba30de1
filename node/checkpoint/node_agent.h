// The node agent: executes its ranks' part of each phase against a
// Storage. Each rank runs as threads (one per file, thread_count per rank),
// streaming deterministic bytes; progress is published while a phase runs.
// RunPhase is idempotent per (run_id, round_id): a retried start returns the
// first start's outcome and never transfers twice.
// Thread-safe: the coordinator side may call Abort() from any thread.
#ifndef CKPTBENCH_NODE_CHECKPOINT_NODE_AGENT_H_
#define CKPTBENCH_NODE_CHECKPOINT_NODE_AGENT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config.h"
#include "common/cpu_usage.h"
#include "common/file_record.h"
#include "common/inspection.h"
#include "common/kinds.h"
#include "common/memory.h"
#include "common/phase_job.h"
#include "common/phase_outcome.h"
#include "common/round_messages.h"
#include "common/step_layout.h"
#include "node/checkpoint/file_io.h"
#include "node/checkpoint/shard_memory.h"
#include "node/checkpoint/training_compute.h"
#include "node/storage/storage_factory.h"

namespace ckpt {

using ProgressFn = std::function<void(const std::vector<uint64_t>& rank_bytes)>;

class NodeAgent {
 public:
  // Takes the process's descriptor reserve for clean-up (fd_reserve.h).
  // mem:// locations are files in `memory` (StorageSet).
  explicit NodeAgent(std::shared_ptr<MemoryStore> memory = nullptr);
  NodeAgent(const NodeAgent&) = delete;
  NodeAgent& operator=(const NodeAgent&) = delete;

  // Lists step-<n> directories under checkpoints_uri (empty if missing).
  // With a `probe_owner` (a run id), first creates the directory and writes
  // and removes a probe file of that run's own there (PermissionDenied etc.
  // naming the path). The .metadata returned is the newest committed
  // step's, or `metadata_step`'s when not 0.
  absl::StatusOr<StepListing> Inspect(const std::string& checkpoints_uri,
                                      const std::string& probe_owner = "",
                                      bool want_metadata = true,
                                      uint64_t metadata_step = 0,
                                      const BackendOptions& options = {});

  // Untimed: opens storage, creates the step directory (save) or makes the
  // files cold (load), allocates buffers. Replaces any prepared job.
  absl::StatusOr<PrepareOutcome> Prepare(PhaseJob job);

  // Waits until start_at_unix_ns, runs the prepared job, returns its
  // outcome. `progress` is called about every progress_interval seconds.
  PhaseOutcome RunPhase(const std::string& run_id, uint64_t round_id,
                        int64_t start_at_unix_ns, const ProgressFn& progress,
                        double progress_interval);

  // Gives the heap pages a large phase freed back to the system (glibc's
  // malloc_trim), when the last RunPhase freed at least kTrimSegments
  // segments' bookkeeping or kTrimBytes of buffers; otherwise nothing.
  // Called after the phase's report is on its way: a trim costs madvise
  // calls and TLB shootdowns, which must not delay the report (at 256
  // agents in one process they were a third of the round's CPU).
  void TrimHeap();
  static constexpr size_t kTrimSegments = 4096;
  static constexpr size_t kTrimBytes = size_t{64} << 20;

  // Writes the step's .metadata (the commit point) durably.
  absl::Status Commit(const std::string& step_uri, const std::string& metadata,
                      const BackendOptions& options = {});
  // A small file `name` in `dir_uri`, whole or not at all, durably (the
  // commit's .metadata, a run's result.json); and whether one is there.
  absl::Status WriteFile(const std::string& dir_uri, const std::string& name,
                         const std::string& data,
                         const BackendOptions& options);
  absl::StatusOr<bool> FileExists(const std::string& dir_uri,
                                  const std::string& name,
                                  const BackendOptions& options);
  // Claims step `step` under checkpoints_uri for run `owner`
  // (Storage::ClaimDir): the claim entry's name, or AlreadyExists when
  // something holds the step. ReleaseClaim removes a claim this run won.
  absl::StatusOr<std::string> Claim(const std::string& checkpoints_uri,
                                    uint64_t step, const std::string& owner,
                                    const BackendOptions& options);
  absl::Status ReleaseClaim(const std::string& checkpoints_uri, uint64_t step,
                            const std::string& claim_name,
                            const BackendOptions& options);
  // Removes, in each of `steps`, the .metadata and the named entries (what
  // this run wrote there), and the step directory if that emptied it.
  // With `abort_uploads`, first aborts those names' unfinished uploads
  // (Storage::AbortUploads), counted into *aborted. With `run_id`, a step
  // whose claim entry holds another run's id is not touched (an error
  // names it): the step was swapped or taken since this run wrote it.
  absl::Status Cleanup(const std::string& checkpoints_uri,
                       const std::vector<uint64_t>& steps,
                       const std::vector<std::string>& names,
                       const BackendOptions& options = {},
                       bool abort_uploads = false, int* aborted = nullptr,
                       const std::string& run_id = "");
  void Abort(const std::string& reason);

  // The run's backends, for the workloads besides the checkpoint.
  StorageSet& storage() { return storage_; }

  // `uri` on this agent's backends (StorageSet::Open): what the
  // coordinator's time-to-visible poll reads with.
  absl::StatusOr<StorageLocation> OpenStorageAt(const std::string& uri,
                                                const BackendOptions& options) {
    return storage_.Open(uri, options);
  }

 private:
  PhaseOutcome Execute(int64_t start_at_unix_ns, const ProgressFn& progress,
                       double progress_interval);
  // Prepare's part for ACCELERATOR=gpu and async saves (node_agent_loop.cc):
  // the files' memory_ (filled with this step's bytes for a save), staged_
  // buffers and the calibrated training compute.
  absl::Status PrepareLoop(const PhaseJob& job);

  // Guards job_, buffers_, location_, read_direct_, checksum_, started_ and
  // trim_pending_;
  // Execute reads all but started_ unlocked while running_ keeps Prepare off
  // them.
  std::mutex mu_;
  bool running_ = false;
  bool trim_pending_ = false;  // see TrimHeap
  std::unique_ptr<PhaseJob> job_;
  StorageSet storage_;  // the run's backends and their counters
  StorageLocation location_;
  std::vector<std::unique_ptr<AlignedBuffer>> buffers_;  // one per file
  // ACCELERATOR=gpu or an async save: where each file's bytes live (the
  // training state), and for an async save the host copy it stages.
  std::vector<std::unique_ptr<ShardMemory>> memory_;
  std::vector<std::unique_ptr<AlignedBuffer>> staged_;
  std::optional<TrainingCompute> compute_;  // async saves
  bool read_direct_ = false;
  ChecksumKind checksum_ = ChecksumKind::kCrc32c;  // of job_->io.checksum
  std::map<std::pair<std::string, uint64_t>, std::shared_future<PhaseOutcome>>
      started_;
  std::atomic<bool> abort_{false};
};

// OK when the buffers a phase holds (a block per file, and the backend's
// own per file) fit in 80% of `budget`; else ResourceExhausted with the
// numbers. Prepare checks it before allocating anything.
absl::Status CheckBufferMemory(const PhaseJob& job, const Storage& storage,
                               const MemoryBudget& budget);

// io.queue_depth as a phase uses it: the configured depth, or for auto 0
// for buffered I/O on local files (posix, memory, null) and 2 for direct
// I/O, FUSE mounts and object stores.
int ResolveQueueDepth(const IoOptions& io, StorageKind storage_kind, bool save);

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

#endif  // CKPTBENCH_NODE_CHECKPOINT_NODE_AGENT_H_
