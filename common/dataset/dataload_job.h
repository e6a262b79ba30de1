// The dataload workload's job and prepare outcome as both sides hold them:
// what a node is asked for one epoch (DataloadJob: its ranks of the world,
// the loader's settings, the dataset, and the epoch's checkpoints), and
// what its prepare found (DataloadPrepared: the dataset's manifest, or the
// listing of a dataset ckptbench did not make). The coordinator's side
// (coordinator/dataset/dataload_round.h) builds the job and reads the
// outcome; the node's (node/dataset/dataload_workload.h) the reverse;
// wire/dataload_codec.h carries both inside the round protocol's workload
// bytes, checked.
#ifndef CKPTBENCH_COMMON_DATASET_DATALOAD_JOB_H_
#define CKPTBENCH_COMMON_DATASET_DATALOAD_JOB_H_

#include <cstdint>
#include <optional>
#include <string>

#include "common/config.h"
#include "common/dataset/dataset_options.h"
#include "common/phase_job.h"

namespace ckpt {

// The workload's name on the wire (PhaseJob::workload) and in a node's
// registry of workloads.
inline constexpr char kDataloadWorkload[] = "dataload";

// A checkpoint every `every_batches` batches of each rank, through the
// checkpoint's own save: `save` is this node's save job for the step
// `first_step` (its URI as the node sees it, `first_step_uri`); each later
// save is the same job for the step the coordinator names at its start.
struct EpochCheckpointJob {
  uint32_t every_batches = 0;
  uint64_t first_step = 0;
  std::string first_step_uri;
  PhaseJob save;
};

struct DataloadJob {
  std::string dataset_uri;  // the node's view of the dataset's root
  uint32_t first_rank = 0;  // the node's first global rank
  uint32_t ranks = 1;       // ranks on this node
  uint32_t world = 1;       // ranks in all
  uint64_t epoch = 0;       // 0-based
  uint64_t seed = 0;
  // The loader's settings for the epoch (dataload.*: access, batch_size,
  // num_workers, prefetch_factor, compute_time, preprocess_time, shuffle,
  // drop_last, shuffle_buffer); the run's (epochs, warm_epochs,
  // checkpoint_every, find_accelerators) do not travel.
  DataloadOptions loader;
  uint64_t block_size = 4 << 20;  // io.block_size
  BackendOptions backend;
  CacheMode cache_mode = CacheMode::kAuto;  // how the reads are kept cold
  // A dataset ckptbench did not make (dataset.source=listed), of this
  // format: listed (and its shards indexed) at prepare, read unverified,
  // within these bounds (dataset.list_*; 0: the default bound).
  bool listed = false;
  DatasetFormat listed_format = DatasetFormat::kTar;
  ListLimits list_limits;
  std::optional<EpochCheckpointJob> checkpoint;  // dataload.checkpoint_every
};

// What a node's listing of a dataset ckptbench did not make found, and
// what the listing and the index cost it.
struct DatasetListing {
  uint64_t objects = 0;  // shards or sample files
  uint64_t bytes = 0;
  uint64_t samples = 0;
  uint64_t sample_bytes = 0;
  uint64_t ignored = 0;  // objects listed that are not of the format
  uint64_t digest = 0;   // of the names, sizes and members
  double list_seconds = 0;
  uint64_t list_requests = 0;
  double index_seconds = 0;
  uint64_t index_requests = 0;
  uint64_t index_bytes = 0;
  bool index_reused = false;
  // Shards longer than their archive by more than a record (their rest
  // never read), the bytes past their archives' ends, the first one.
  uint64_t overlong_objects = 0;
  uint64_t overlong_bytes = 0;
  std::string overlong_first;
};

// What a node found at prepare: the dataset's manifest as read, or a
// listed dataset's listing.
struct DataloadPrepared {
  std::string manifest;
  std::optional<DatasetListing> listing;
  // The node's time to know the dataset: its manifest read and checked,
  // or its listing (and TAR index) made; before the epoch.
  double dataset_seconds = 0;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_DATASET_DATALOAD_JOB_H_
