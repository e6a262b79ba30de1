// One checkpoint phase on a node, from the common start instant: a thread
// per file (SaveFile / LoadFile, node/checkpoint/file_io.h) counting its
// rank's bytes as it goes, an async save's staging gate and the training
// compute it overlaps, the first real error winning over the aborts it
// caused, the step directory synced for a durable save, then the outcome
// summed up per rank and per file. CheckpointWorkload::Run runs one on
// what its Prepare made ready.
#ifndef CKPTBENCH_NODE_CHECKPOINT_CHECKPOINT_PHASE_H_
#define CKPTBENCH_NODE_CHECKPOINT_CHECKPOINT_PHASE_H_

#include <atomic>
#include <functional>
#include <latch>
#include <memory>
#include <thread>
#include <vector>

#include "common/phase_job.h"
#include "common/phase_outcome.h"
#include "node/checkpoint/file_io.h"
#include "node/checkpoint/shard_memory.h"
#include "node/checkpoint/training_compute.h"
#include "node/round/progress_reporter.h"
#include "node/storage/io_tally.h"
#include "node/storage/storage_factory.h"

namespace ckpt {

// What Prepare made ready for the phase (CheckpointWorkload's members,
// borrowed).
struct PreparedPhase {
  const PhaseJob* job = nullptr;
  const StorageLocation* location = nullptr;
  bool read_direct = false;
  ChecksumKind checksum = ChecksumKind::kCrc32c;
  const std::vector<std::unique_ptr<AlignedBuffer>>* buffers = nullptr;
  const std::vector<std::unique_ptr<ShardMemory>>* memory = nullptr;
  const std::vector<std::unique_ptr<AlignedBuffer>>* staged = nullptr;
  const TrainingCompute* compute = nullptr;  // async saves
  // An async save: called once every file is staged (training resumes).
  std::function<void()> on_staged;
  const ObjectStoreCounters* counters = nullptr;
  // Each rank's bytes so far, one per rank of the job: the phase adds to
  // them, progress reads them meanwhile.
  std::vector<std::atomic<uint64_t>>* rank_bytes = nullptr;
};

class CheckpointPhase {
 public:
  // `abort` stops the phase's files (set by the round's abort, and by the
  // phase itself when a file fails); `progress` is sent while the phase
  // waits for its files.
  CheckpointPhase(const PreparedPhase& prepared, std::atomic<bool>& abort,
                  ProgressReporter& progress);

  // Called at the start instant; `out` arrives with its histograms held
  // (reserved before the start) and leaves as the node's report.
  PhaseOutcome Run(PhaseOutcome out);

 private:
  // One file of the phase, as its thread fills it.
  struct Slot {
    size_t rank_index = 0;
    const FileJob* file = nullptr;
    AlignedBuffer* buffer = nullptr;
    ShardMemory* memory = nullptr;    // gpu or async: where the bytes live
    AlignedBuffer* staged = nullptr;  // async save: the staged copy
    OpStats stats;
    FileOutcome outcome;
    absl::Status status;
    // Its object-store requests and retries, counted on its thread and on
    // the reader's and uploader's workers (io_tally.h).
    IoTally tally;
  };
  void MakeSlots();
  // The files' threads, the async gate and compute; returns when every
  // file is done.
  void TransferFiles(PhaseOutcome* out);
  void TransferFile(Slot& s, std::latch& gate);
  // A durable save: the step's entries, then its own entry in the parent.
  void SyncStepDir(PhaseOutcome* out) const;
  // Seconds and staging summed over the files.
  void SumUpFiles(PhaseOutcome* out) const;
  // Each rank's outcome and each file's record, histograms, checksums.
  void RecordFiles(PhaseOutcome* out) const;

  const PreparedPhase p_;
  const PhaseJob& job_;
  std::atomic<bool>& abort_;
  ProgressReporter& progress_;
  const bool async_;  // an async save: stage every file, then persist
  SteadyTime start_;
  std::vector<std::atomic<uint64_t>>& rank_bytes_;
  std::vector<Slot> slots_;
  std::thread compute_;  // an async save's training compute
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_CHECKPOINT_PHASE_H_
