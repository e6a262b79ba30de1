// Where each worker of a rank's data loader (rank_loader.h) gets its
// batches: its samples read one after another, each verified against what
// datagen wrote. Map-style (map_source.h): the sampler's batches w, w + W,
// ... of the rank's samples, one request per sample; iterable
// (stream_source.h): the worker's own objects streamed whole, their
// samples through a shuffle buffer. A source is used by its worker's
// thread only.
#ifndef CKPTBENCH_NODE_DATASET_BATCH_SOURCE_H_
#define CKPTBENCH_NODE_DATASET_BATCH_SOURCE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/histogram.h"
#include "common/op_stats.h"
#include "node/dataset/sample_index.h"
#include "node/storage/http_client.h"
#include "node/storage/storage.h"

namespace ckpt {

// Nanoseconds from one steady-clock reading to a later one.
inline uint64_t ElapsedNs(std::chrono::steady_clock::time_point from,
                          std::chrono::steady_clock::time_point to) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count());
}

struct LoaderParams {
  uint32_t batch_size = 1;
  uint32_t num_workers = 1;
  uint32_t prefetch_factor = 2;
  double compute_seconds = 0;
  double preprocess_seconds = 0;
  uint64_t block_size = 4 << 20;
  uint64_t shuffle_buffer = 1;  // iterable
  std::string root;  // the dataset's, in the workers' backends' namespace
};

// A worker's own backend and what it did.
struct LoaderWorker {
  Storage* storage = nullptr;
  const ObjectStoreCounters* counters = nullptr;
  uint64_t samples = 0, batches = 0;
  uint64_t objects = 0;  // iterable: objects streamed
  OpStats ops;
  // Map-style: per sample, from its request to its first block and to its
  // last byte; iterable: the same per object streamed.
  Histogram first_byte, last_byte;
};

// What a worker's source works with.
struct SourceContext {
  const LoaderParams* params = nullptr;
  const SampleIndex* index = nullptr;
  LoaderWorker* worker = nullptr;
  const std::atomic<bool>* abort = nullptr;
  std::atomic<uint64_t>* bytes = nullptr;  // the rank's, verified so far

  bool aborted() const { return abort->load(std::memory_order_relaxed); }
  void Counted(uint64_t n) const {
    bytes->fetch_add(n, std::memory_order_relaxed);
  }
  // A sample's preprocessing (dataload.preprocess_time), slept.
  void Preprocess() const;
  // A worker's read buffer: a block, or less for small samples.
  std::vector<unsigned char> Buffer() const;
};

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // The worker's next batch into *batch (its samples, in order); false
  // when it has none left. Aborted when the abort flag was seen.
  virtual absl::StatusOr<bool> Next(std::vector<uint32_t>* batch) = 0;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_BATCH_SOURCE_H_
