// One rank's epoch of the data loader, as PyTorch's DataLoader runs it:
// `num_workers` workers, each making whole batches from its source
// (batch_source.h: map-style or iterable), each keeping at most
// `prefetch_factor` batches ready; and the emulated accelerator on the
// calling thread taking the workers' batches in turn (worker 0's, 1's,
// ..., a worker that has no more left out, as PyTorch's iterator does),
// then computing `compute` seconds. With map-style access that is batch
// 0, 1, 2, ... of the rank. Each worker reads through its own backend (its
// own connections: PyTorch's workers are processes). Not thread-safe: one
// Run.
#ifndef CKPTBENCH_NODE_DATASET_RANK_LOADER_H_
#define CKPTBENCH_NODE_DATASET_RANK_LOADER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "common/dataset/dataload_report.h"
#include "common/dataset/epoch_order.h"
#include "common/histogram.h"
#include "common/kinds.h"
#include "node/dataset/batch_source.h"

namespace ckpt {

// The abort flag is also set from outside (another rank's failure, the
// coordinator's Abort) with no notify of a waiter's condition variable: the
// loaders' and the epoch's saves' waits look at it again at least this often.
inline constexpr auto kAbortPoll = std::chrono::milliseconds(20);

// What one rank reads in the epoch.
struct RankShare {
  DataAccess access = DataAccess::kMap;
  RankOrder samples;  // map-style: the rank's, in order (computed as read)
  // Iterable: each worker's objects, in order, and the seed of its
  // shuffle buffer (the worker's index added).
  std::vector<std::vector<uint32_t>> objects;
  uint64_t shuffle_seed = 0;
};

// What the rank did (times from `start`).
struct RankEpochStats {
  uint64_t samples = 0, bytes = 0, batches = 0;
  double seconds = 0, first_batch_seconds = -1;
  FirstBatchParts first_batch;  // with first_batch_seconds >= 0
  double compute_seconds = 0, wait_seconds = 0;
  uint64_t digest = 0, order_digest = 0;
  Histogram wait;
  struct Window {
    uint64_t steps = 0;
    double mean = 0, variance = 0;
  };
  std::vector<Window> windows;  // per 100 steps
};

// What the accelerator meets between its steps (checkpoints during the
// epoch: epoch_checkpoint.h). Called from every rank's thread.
class StepHook {
 public:
  virtual ~StepHook() = default;
  // After rank `rank`'s (the node's, 0-based) `batches`-th batch, of
  // `samples`, computed for `compute_seconds`: may hold the rank; an error
  // stops it.
  virtual absl::Status AfterStep(size_t rank, uint64_t batches,
                                 uint64_t samples, double compute_seconds) = 0;
  // The rank has no more batches (its epoch's time is taken before).
  virtual absl::Status RankDone(size_t rank) = 0;
};

class RankLoader {
 public:
  // `bytes` counts the rank's verified bytes as they arrive (progress).
  RankLoader(const LoaderParams& params, const SampleIndex& index,
             RankShare plan, std::vector<LoaderWorker>* workers,
             std::atomic<bool>* abort, std::atomic<uint64_t>* bytes);

  // The epoch, from `start`; the first error (a sample that does not match
  // names its object and key) stops the rank and sets the abort flag.
  absl::Status Run(std::chrono::steady_clock::time_point start);
  // Called between steps as the node's rank `rank` (before Run).
  void SetStepHook(StepHook* hook, size_t rank) {
    hook_ = hook;
    hook_rank_ = rank;
  }
  const RankEpochStats& stats() const { return stats_; }

 private:
  // A worker's batches made and not yet taken, and whether it made all.
  // With the worker's first batch: when it started and made it, and what
  // it had done by then (the parts' times still from its start).
  struct Queue {
    std::deque<std::vector<uint32_t>> ready;
    bool done = false;
    std::chrono::steady_clock::time_point started, first_made;
    uint64_t requests0 = 0, connections0 = 0, connect_ns0 = 0;  // at start
    FirstBatchParts first;
  };
  void Work(size_t w);
  // Worker w's first batch made: what it did for it into its queue (under
  // mu_).
  void FirstMade(size_t w);
  // The next batch in turn into *batch, *from the worker that made it;
  // false at the epoch's end or on abort (*aborted).
  bool Take(size_t* turn, std::vector<uint32_t>* batch, size_t* from,
            bool* aborted);
  // The rank's first batch, from worker w, taken at `got`.
  void FirstTaken(size_t w, std::chrono::steady_clock::time_point start,
                  std::chrono::steady_clock::time_point got);
  void Consumed(const std::vector<uint32_t>& batch);
  void Fail(absl::Status s);
  void AddStep(double seconds);
  void CloseWindow();
  // Until ready() or the abort flag (under mu_, held by `lock`).
  template <typename Ready>
  void WaitFor(std::unique_lock<std::mutex>& lock, Ready ready);

  const LoaderParams p_;
  const RankShare plan_;
  StepHook* hook_ = nullptr;
  size_t hook_rank_ = 0;
  std::vector<LoaderWorker>& workers_;
  std::atomic<bool>& abort_;
  std::atomic<uint64_t>& bytes_;
  std::vector<std::unique_ptr<BatchSource>> sources_;  // one per worker
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Queue> queues_;
  std::vector<char> exhausted_;  // the consumer's: a worker done and taken
  absl::Status error_;
  RankEpochStats stats_;
  // The open window of step times.
  uint64_t window_steps_ = 0;
  double window_sum_ = 0, window_sq_ = 0;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_RANK_LOADER_H_
