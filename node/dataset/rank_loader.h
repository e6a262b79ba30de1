// One rank's epoch of the data loader, as PyTorch's DataLoader runs it
// with map-style access: `num_workers` workers, worker w making batches w,
// w + W, w + 2W, ... (whole batches, their samples read one after another,
// each verified, then `preprocess` slept per sample), never more than
// `prefetch_factor` x W batches ahead of the consumer; and the emulated
// accelerator on the calling thread taking batch 0, 1, 2, ... in order as
// each is ready, then computing `compute` seconds. Each worker reads
// through its own backend (its own connections: PyTorch's workers are
// processes). Not thread-safe: one Run.
#ifndef CKPTBENCH_NODE_DATASET_RANK_LOADER_H_
#define CKPTBENCH_NODE_DATASET_RANK_LOADER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/histogram.h"
#include "common/op_stats.h"
#include "node/dataset/sample_index.h"
#include "node/storage/http_client.h"
#include "node/storage/storage.h"

namespace ckpt {

struct LoaderParams {
  uint32_t batch_size = 1;
  uint32_t num_workers = 1;
  uint32_t prefetch_factor = 2;
  double compute_seconds = 0;
  double preprocess_seconds = 0;
  uint64_t block_size = 4 << 20;
  std::string root;  // the dataset's, in the workers' backends' namespace
};

// A worker's own backend and what it did.
struct LoaderWorker {
  Storage* storage = nullptr;
  const ObjectStoreCounters* counters = nullptr;
  uint64_t samples = 0, batches = 0;
  OpStats ops;
  Histogram first_byte, last_byte;  // per sample
};

// What the rank did (times from `start`).
struct RankEpochStats {
  uint64_t samples = 0, bytes = 0, batches = 0;
  double seconds = 0, first_batch_seconds = -1;
  double compute_seconds = 0, wait_seconds = 0;
  uint64_t digest = 0, order_digest = 0;
  Histogram wait;
  struct Window {
    uint64_t steps = 0;
    double mean = 0, variance = 0;
  };
  std::vector<Window> windows;  // per 100 steps
};

class RankLoader {
 public:
  RankLoader(const LoaderParams& params, const SampleIndex& index,
             std::vector<uint32_t> samples, std::vector<LoaderWorker>* workers,
             std::atomic<bool>* abort, std::atomic<uint64_t>* bytes_done);

  // The epoch, from `start`; the first error (a sample that does not match
  // names its object and key) stops the rank and sets the abort flag.
  absl::Status Run(std::chrono::steady_clock::time_point start);
  const RankEpochStats& stats() const { return stats_; }

 private:
  void Work(size_t w);
  absl::Status ReadBatch(LoaderWorker& worker, uint64_t batch,
                         std::vector<unsigned char>& buffer);
  absl::Status ReadSample(LoaderWorker& worker, uint64_t sample,
                          std::vector<unsigned char>& buffer);
  void Fail(absl::Status s);
  // Until ready() or the abort flag (under mu_, held by `lock`).
  template <typename Ready>
  void WaitFor(std::unique_lock<std::mutex>& lock, Ready ready);
  void AddStep(double seconds);

  const LoaderParams p_;
  const SampleIndex& index_;
  const std::vector<uint32_t> samples_;
  std::vector<LoaderWorker>& workers_;
  std::atomic<bool>& abort_;
  std::atomic<uint64_t>& bytes_done_;
  const uint64_t batches_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<char> ready_;  // per batch
  uint64_t consumed_ = 0;
  absl::Status error_;
  RankEpochStats stats_;
  std::atomic<uint64_t> bytes_{0};
  // The open window of step times.
  uint64_t window_steps_ = 0;
  double window_sum_ = 0, window_sq_ = 0;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_RANK_LOADER_H_
