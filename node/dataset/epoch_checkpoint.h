// Checkpoints during a dataload epoch (dataload.checkpoint_every) on a
// node: after every N batches of each rank, the node's ranks save the
// checkpoint through the checkpoint workload's own save
// (node/checkpoint/checkpoint_workload.h, embedded: the training state
// kept here across saves). When each of the node's ranks has consumed the
// batch (or has none left), the last one to get there leads the save: it
// asks the coordinator for the save's start (a barrier across nodes; the
// answer names the step), prepares and runs the save, and asks again once
// the node's files are durable (the coordinator commits when every node
// has). A sync save holds the ranks from the first one's arrival to the
// commit; an async save holds them until its files are staged, persists
// beside the epoch, and the next save waits for it. Meanwhile it counts
// what the ranks consumed in each save's window (from the last rank's
// arrival to the save's end), for the interference.
// Thread-safe: every rank's thread calls in.
#ifndef CKPTBENCH_NODE_DATASET_EPOCH_CHECKPOINT_H_
#define CKPTBENCH_NODE_DATASET_EPOCH_CHECKPOINT_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataload_report.h"
#include "common/phase_job.h"
#include "node/checkpoint/checkpoint_workload.h"
#include "node/dataset/rank_loader.h"
#include "node/round/node_workload.h"
#include "node/round/progress_reporter.h"
#include "node/storage/storage_factory.h"

namespace ckpt {

class EpochCheckpointer : public StepHook {
 public:
  // Untimed, at the epoch's prepare: the save's job (a save of the
  // checkpoint, wire/dataload_codec.h made sure; checked as the
  // checkpoint's own prepare checks it, at each save), and an async save's
  // state for the first step. `ranks`: the node's.
  static absl::StatusOr<std::unique_ptr<EpochCheckpointer>> Prepare(
      const EpochCheckpointJob& job, StorageSet& storage, size_t ranks);
  ~EpochCheckpointer() override;

  // The phase starts: its abort flag and asks, its start instant.
  void Start(const NodePhaseContext& ctx,
             std::chrono::steady_clock::time_point start);
  absl::Status AfterStep(size_t rank, uint64_t batches, uint64_t samples,
                         double compute_seconds) override;
  absl::Status RankDone(size_t rank) override;
  // Every rank is done: waits for an async save still persisting; its
  // error, or the first save's that failed.
  absl::Status Finish();
  // The saves taken, into the node's report.
  void Report(DataloadReport* report) const;

 private:
  using Clock = std::chrono::steady_clock;
  EpochCheckpointer(PhaseJob save, StorageSet& storage, size_t ranks,
                    uint32_t every, uint64_t step, std::string step_uri);
  double Now() const;
  // The save `k` this thread leads (every rank of the node is there);
  // returns once the ranks may go on.
  absl::Status Lead(uint32_t k);
  // The save's second ask (durable, with its report): its answer names
  // the next save's step; an async save then makes that step's state.
  absl::Status Saved(uint32_t k, const PhaseOutcome& out,
                     const PrepareOutcome& prepared);
  absl::StatusOr<EpochSaveAnswer> Ask(const EpochSaveAsk& ask);
  void Release(uint32_t k);
  // Save k starts: its figures and window (under mu_).
  void OpenWindow(uint32_t k);
  void CloseWindow(uint32_t k);
  absl::Status Fail(absl::Status s);
  // Waits (under `lock`) until save k released the ranks, or an abort.
  absl::Status AwaitRelease(std::unique_lock<std::mutex>& lock, uint32_t k);

  const PhaseJob save_;
  StorageSet& storage_;
  const size_t ranks_;
  const uint32_t every_;
  const bool async_;
  uint64_t step_;  // the next save's, and its URI
  std::string step_uri_;
  SaveState state_;  // async: the next save's training state
  NodePhaseContext ctx_;
  Clock::time_point start_;
  std::unique_ptr<ProgressReporter> quiet_;  // the save sends no progress
  std::unique_ptr<CheckpointWorkload> persisting_;
  std::thread persist_;  // an async save persisting

  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint32_t next_ = 1;      // the next save's number
  uint32_t released_ = 0;  // the last save that let the ranks go
  size_t arrived_ = 0, done_ = 0;
  double first_arrival_ = 0;  // of the next save's ranks
  uint64_t batch_ = 0;        // the batch they are at
  bool skipping_ = false;     // the coordinator said no more saves
  absl::Status error_;
  // Each save's figures, and whether its window is open (an async save's
  // may still be when the next one starts).
  std::vector<EpochSaveStats> saves_;
  std::vector<char> open_;
  // Any window open: since when, the periods closed so far, and what the
  // ranks consumed meanwhile (each batch once).
  size_t open_count_ = 0;
  double any_open_since_ = 0;
  std::vector<std::pair<double, double>> any_open_;
  uint64_t any_open_samples_ = 0;
  double any_open_compute_ = 0;
  double last_step_ = 0;  // the last batch consumed
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_EPOCH_CHECKPOINT_H_
