// The dataset workloads' block of the configuration: dataset.* (a dataset
// to make, run.workload=datagen, or to read) and dataload.* (how a
// dataload run reads it), with the data loader's bounds. Blocks of Config
// (common/config_blocks.h): DatasetOf(config), DataloadOf(config); their
// keys are in dataset_keys.cc.
// Thread-compatible (plain data).
#ifndef CKPTBENCH_COMMON_DATASET_DATASET_OPTIONS_H_
#define CKPTBENCH_COMMON_DATASET_DATASET_OPTIONS_H_

#include <cstdint>
#include <string>

#include "common/config.h"
#include "common/dataset/dataset_layout.h"
#include "common/kinds.h"

namespace ckpt {

// dataset.sample_spread = auto: a sixth of the sample's size.
inline constexpr uint64_t kAutoSpread = UINT64_MAX;

// Bounds on a listed dataset's listing (dataset.list_*): a listing past
// one is refused naming it (node/storage/listing_pager.h).
struct ListLimits {
  uint64_t max_objects = 1ull << 25;      // objects and prefixes
  uint64_t max_pages = 1ull << 20;        // pages (object stores)
  uint64_t max_key_bytes = 2ull << 30;    // names and versions, summed
  uint64_t max_page_bytes = 16ull << 20;  // one page's answer
  uint64_t max_bytes = 32ull << 30;       // every page's answer, summed

  bool operator==(const ListLimits&) const = default;
};

// A dataset to make (run.workload=datagen) or read (dataload):
// common/dataset/dataset_layout.h says what the numbers mean.
struct DatasetOptions {
  std::string path;  // CKPT_DATASET_PATH; "" = <storage.path>/dataset
  DatasetSource source = DatasetSource::kCkptbench;  // dataload: whose
  DatasetFormat format = DatasetFormat::kTar;
  uint64_t samples = 10000;
  uint64_t sample_bytes = 150 * 1024;  // the mean
  // The standard deviation; kAutoSpread: a sixth of sample_bytes (25 KiB
  // for the default 150 KiB), so a size set alone brings its own.
  uint64_t sample_spread = kAutoSpread;
  uint64_t shard_bytes = 4 << 20;  // tar
  int spread_prefixes = 0;         // files
  uint64_t seed = 1;
  int write_threads = 16;  // datagen: objects written at once per node
  bool remove = false;     // datagen: remove the dataset instead
  ListLimits list;         // dataload of a listed dataset
};

// datagen's writers per node (dataset.write_threads): the key table's bound
// and the node's (wire/datagen_codec.h checks a job through the table).
inline constexpr int kMaxDatagenWriteThreads = 1024;

// The data loader's bounds, one constant each for the key table (or the
// configuration's checks) and the node that receives the value.
inline constexpr int kMaxDataloadWorkers = 256;  // dataload.num_workers
inline constexpr int kMaxPrefetchFactor = 64;    // dataload.prefetch_factor
inline constexpr int kMaxDataloadRanks = 1024;   // NUM_DEVICES, per node
// dataload.compute_time and dataload.preprocess_time, seconds.
inline constexpr double kMaxDataloadStepSeconds = 3600;

// How a dataload run reads the dataset (run.workload=dataload), in
// PyTorch DataLoader's terms: per rank, `num_workers` workers each make
// whole batches of `batch_size`, reading their samples one after another,
// and keep up to `prefetch_factor` batches ready; an emulated accelerator
// per rank takes a batch every `compute_time` seconds.
struct DataloadOptions {
  DataAccess access = DataAccess::kMap;
  int epochs = 2;
  int batch_size = 32;
  int num_workers = 4;
  int prefetch_factor = 2;
  double compute_time = 0;     // seconds per batch; 0 = no backpressure
  double preprocess_time = 0;  // seconds per sample in the worker (decoding)
  bool shuffle = true;
  bool drop_last = true;      // the sampler's (DistributedSampler)
  bool warm_epochs = false;   // epochs after the first may read from caches
  int shuffle_buffer = 1000;  // iterable: samples held to shuffle (1: none)
  // A checkpoint (the model.* one, saved as run.async says) after every
  // this many batches of each rank; 0 = none.
  int checkpoint_every = 0;
  // Search the most accelerators (ranks per node, up to this many) that
  // the storage keeps at >= 90% utilization, one cold epoch a count; 0 =
  // no search.
  int find_accelerators = 0;
};

// The dataset workloads' blocks of a configuration.
inline DatasetOptions& DatasetOf(Config& config) {
  return config.blocks.Get<DatasetOptions>();
}
inline const DatasetOptions& DatasetOf(const Config& config) {
  return config.blocks.Get<DatasetOptions>();
}
inline DataloadOptions& DataloadOf(Config& config) {
  return config.blocks.Get<DataloadOptions>();
}
inline const DataloadOptions& DataloadOf(const Config& config) {
  return config.blocks.Get<DataloadOptions>();
}

// dataset.path, or <storage.path>/dataset.
std::string DatasetPath(const Config& config);
// dataset.sample_spread, auto resolved.
uint64_t SampleSpread(const Config& config);
// The dataset dataset.* describes (shard_bytes only for tar,
// spread_prefixes only for files).
DatasetSpec DatasetSpecOf(const Config& config);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_DATASET_DATASET_OPTIONS_H_
