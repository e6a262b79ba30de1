// The checkpoint as a workload on a node (node/round/node_workload.h):
// Prepare opens the step's storage, makes the step directory (a save) or
// the files cold (a load), checks and allocates the buffers, and for
// ACCELERATOR=gpu or an async save puts the shard bytes where they live
// (checkpoint_workload_loop.cc); Run streams every file of the node's
// ranks (CheckpointPhase) from the common start; Progress counts each
// rank's bytes. The round protocol around it (the start instant, progress
// messages, the abort, a retried start) is the same as for every workload
// (node/round/workload_phase.h). One instance per round.
#ifndef CKPTBENCH_NODE_CHECKPOINT_CHECKPOINT_WORKLOAD_H_
#define CKPTBENCH_NODE_CHECKPOINT_CHECKPOINT_WORKLOAD_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config.h"
#include "common/kinds.h"
#include "common/memory.h"
#include "common/phase_job.h"
#include "common/phase_outcome.h"
#include "common/round_messages.h"
#include "node/checkpoint/file_io.h"
#include "node/checkpoint/shard_memory.h"
#include "node/checkpoint/training_compute.h"
#include "node/round/node_workload.h"
#include "node/storage/storage_factory.h"

namespace ckpt {

// A save's training state kept across rounds by its caller (checkpoints
// during a dataload epoch, node/dataset/epoch_checkpoint.h): each file's
// bytes in host memory, made for one step, and the staged copy an async
// save takes of them. Empty for a sync save, which makes its bytes as it
// writes them.
struct SaveState {
  std::vector<std::unique_ptr<ShardMemory>> memory;
  std::vector<std::unique_ptr<AlignedBuffer>> staged;
};

// Makes `state` hold the bytes of `job`'s files (an async save's: its
// training state, and buffers to stage it into), reusing what it holds
// when the sizes match.
absl::Status FillSaveState(const PhaseJob& job, SaveState* state);

class CheckpointWorkload : public NodeWorkload {
 public:
  CheckpointWorkload() = default;
  CheckpointWorkload(const CheckpointWorkload&) = delete;
  CheckpointWorkload& operator=(const CheckpointWorkload&) = delete;

  // Untimed. The job's io.* go through this node's key table first
  // (RecheckKeys), and the buffers are checked against the memory left
  // (CheckBufferMemory) before any is allocated.
  absl::StatusOr<PrepareOutcome> Prepare(
      PhaseJob job, StorageSet& storage,
      const std::atomic<bool>& abort) override;
  // The phase; frees its buffers and file list before returning (the
  // next round prepares anew), so they are not held while the commit's
  // .metadata or the next listing passes through the process.
  PhaseOutcome Run(const NodePhaseContext& ctx) override;
  // Each rank's bytes so far (no total).
  std::vector<RankProgress> Progress() const override;
  // Frees what a phase that never ran holds; then gives the heap pages
  // freed back to the system (glibc's malloc_trim) when they held at
  // least kTrimSegments segments' bookkeeping or kTrimBytes of buffers;
  // otherwise nothing. After the report: a trim costs madvise calls and
  // TLB shootdowns, which must not delay it (at 256 agents in one process
  // they were a third of the round's CPU).
  void GiveBack() override;
  // A save of a training loop its caller runs (an epoch's checkpoints):
  // Prepare takes the state from `state` (which outlives the round)
  // instead of making its own, no training compute is emulated, and
  // `on_staged` (when set) is called as soon as every file is staged, while
  // an async save persists on. Before Prepare.
  void Embed(SaveState* state, std::function<void()> on_staged);
  static constexpr size_t kTrimSegments = 4096;
  static constexpr size_t kTrimBytes = size_t{64} << 20;

 private:
  // Prepare's part for ACCELERATOR=gpu and async saves
  // (checkpoint_workload_loop.cc): the files' memory_ (filled with this
  // step's bytes for a save), staged_ buffers and the calibrated training
  // compute.
  absl::Status PrepareLoop(const PhaseJob& job);
  // Frees the buffers and the file list (once); notes whether to trim.
  void Release();

  PhaseJob job_;
  StorageLocation location_;
  const ObjectStoreCounters* counters_ = nullptr;
  std::vector<std::unique_ptr<AlignedBuffer>> buffers_;  // one per file
  // ACCELERATOR=gpu or an async save: where each file's bytes live (the
  // training state), and for an async save the host copy it stages.
  std::vector<std::unique_ptr<ShardMemory>> memory_;
  std::vector<std::unique_ptr<AlignedBuffer>> staged_;
  std::optional<TrainingCompute> compute_;  // async saves
  SaveState* embedded_ = nullptr;           // Embed
  std::function<void()> on_staged_;
  bool read_direct_ = false;
  // The report, its histograms held whole before the start (Prepare):
  // allocated after the last file, they delayed every report
  // (coordination_bench, 64 agents: the time after the last byte 4.9 ms
  // to 6.5 ms).
  PhaseOutcome reserved_;
  // Each rank's number and bytes so far, read by Progress meanwhile.
  std::vector<uint32_t> ranks_;
  std::vector<std::atomic<uint64_t>> rank_bytes_;
  bool released_ = false;
  bool trim_ = false;  // see GiveBack
};

// OK when the buffers a phase holds (a block per file, and the backend's
// own per file) fit in 80% of `budget`; else ResourceExhausted with the
// numbers. Prepare checks it before allocating anything.
// `state_held`: the async state is allocated already (Embed).
absl::Status CheckBufferMemory(const PhaseJob& job, const Storage& storage,
                               const MemoryBudget& budget,
                               bool state_held = false);

// io.queue_depth as a phase uses it: the configured depth, or for auto 0
// for buffered I/O on local files (posix, memory, null) and 2 for direct
// I/O, FUSE mounts and object stores.
int ResolveQueueDepth(const IoOptions& io, StorageKind storage_kind, bool save);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_CHECKPOINT_WORKLOAD_H_
