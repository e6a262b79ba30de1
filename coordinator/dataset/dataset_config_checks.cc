#include "coordinator/dataset/dataset_config_checks.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_options.h"
#include "common/dataset/epoch_order.h"
#include "common/storage_uri.h"

namespace ckpt {
namespace {

// An epoch of a dataset of ckptbench's (its sample count known) too short
// for one save: a run would end with none and say nothing was wrong.
// Map-style, each rank's batches are known; iterable, ranks take whole
// objects and differ, and a save happens while one rank of every node is
// still reading: it cannot once N is past a node's whole share in batches.
absl::Status CheckSavesFitTheEpoch(const Config& c) {
  if (DatasetOf(c).source != DatasetSource::kCkptbench) return absl::OkStatus();
  const uint64_t nodes =
      static_cast<uint64_t>(std::max(c.cluster.num_nodes, 1));
  const uint64_t ranks = static_cast<uint64_t>(std::max(c.RanksPerNode(), 1));
  const uint64_t batch =
      static_cast<uint64_t>(std::max(DataloadOf(c).batch_size, 1));
  const bool map = DataloadOf(c).access == DataAccess::kMap;
  // The sampler's split over the ranks (map), or a node's share (iterable).
  SamplerSpec split;
  split.samples = DatasetOf(c).samples;
  split.world = static_cast<uint32_t>(map ? nodes * ranks : nodes);
  split.drop_last = !map || DataloadOf(c).drop_last;
  const uint64_t batches = (ShapeOf(split).per_rank + batch - 1) / batch;
  if (static_cast<uint64_t>(DataloadOf(c).checkpoint_every) <= batches) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "dataload.checkpoint_every (CKPT_CHECKPOINT_EVERY) = ",
      DataloadOf(c).checkpoint_every, ": expected at most ", batches,
      map ? ", the batches each rank has in an epoch"
          : ", the batches of a node's share of the dataset",
      " (dataset.samples ", DatasetOf(c).samples, " over ", nodes, " node(s)",
      map ? absl::StrCat(" x ", ranks, " rank(s)") : std::string(),
      ", dataload.batch_size ", batch, "): no checkpoint would be taken"));
}

// Checkpoints during a dataload epoch (dataload.checkpoint_every).
absl::Status CheckEpochCheckpoints(const Config& c, bool need_storage) {
  // datagen leaves the data loader's keys alone (one file makes and reads
  // a dataset).
  if (DataloadOf(c).checkpoint_every == 0 ||
      c.run.workload == kDatagenWorkload) {
    return absl::OkStatus();
  }
  if (c.run.workload != kDataloadWorkload) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dataload.checkpoint_every (CKPT_CHECKPOINT_EVERY) = ",
        DataloadOf(c).checkpoint_every, " with run.workload = ", c.run.workload,
        ": checkpoints during training are taken by a dataload epoch; "
        "expected run.workload = dataload, or 0"));
  }
  if (CheckpointOf(c).interval > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "run.interval (CKPT_INTERVAL) = ", CheckpointOf(c).interval,
        " with dataload.checkpoint_every (CKPT_CHECKPOINT_EVERY) = ",
        DataloadOf(c).checkpoint_every,
        ": during an epoch the training between saves is the epoch's own "
        "batches; expected run.interval unset (0)"));
  }
  if (c.cluster.accelerator == Accelerator::kGpu) {
    return absl::InvalidArgumentError(
        "dataload.checkpoint_every (CKPT_CHECKPOINT_EVERY) with "
        "cluster.accelerator (ACCELERATOR) = gpu: checkpoints during an "
        "epoch are saved from host memory in this version; expected "
        "ACCELERATOR=cpu");
  }
  if (need_storage && c.storage.path.empty()) {
    return absl::InvalidArgumentError(
        "dataload.checkpoint_every (CKPT_CHECKPOINT_EVERY) with no "
        "storage.path (CKPT_DIR_PATH): expected where the checkpoints go "
        "(they are saved under its checkpoints/)");
  }
  return CheckSavesFitTheEpoch(c);
}

// The accelerator search (dataload.find_accelerators).
absl::Status CheckAcceleratorSearch(const Config& c) {
  const int n = DataloadOf(c).find_accelerators;
  if (n == 0 || c.run.workload != kDataloadWorkload) {
    return absl::OkStatus();
  }
  if (DataloadOf(c).compute_time <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dataload.find_accelerators (CKPT_FIND_ACCELERATORS) = ", n,
        " with dataload.compute_time (CKPT_COMPUTE_TIME) = 0: utilization "
        "needs an accelerator's time per batch; expected e.g. "
        "CKPT_COMPUTE_TIME=0.188 (MLPerf Storage's unet3d on H100)"));
  }
  if (DataloadOf(c).checkpoint_every > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dataload.find_accelerators (CKPT_FIND_ACCELERATORS) = ", n,
        " with dataload.checkpoint_every (CKPT_CHECKPOINT_EVERY) = ",
        DataloadOf(c).checkpoint_every,
        ": the search measures reading alone; expected one of them"));
  }
  if (n > kMaxDataloadRanks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dataload.find_accelerators (CKPT_FIND_ACCELERATORS) = ", n,
        ": expected at most ", kMaxDataloadRanks, " ranks per node"));
  }
  return absl::OkStatus();
}

// The checkpoints a dataload epoch saves must not be inside the dataset
// (the next epoch would read them as samples), nor hold it.
absl::Status CheckDatasetApartFromCheckpoints(const Config& c) {
  if (c.run.workload != kDataloadWorkload ||
      DataloadOf(c).checkpoint_every == 0 || c.storage.path.empty()) {
    return absl::OkStatus();
  }
  const std::string dataset = DatasetPath(c);
  const std::string checkpoints = c.StepsPath();
  if (!LocationsOverlap(dataset, checkpoints)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "dataset.path (CKPT_DATASET_PATH) ", dataset,
      " and the checkpoints the epoch saves, ", checkpoints,
      " (storage.path's checkpoints/), overlap: an epoch would read the "
      "checkpoints as samples. Expected a dataset apart from them, e.g. "
      "under storage.path's datasets/"));
}

}  // namespace

absl::Status CheckDatasetKeys(const Config& c, const KeyCheckScope& scope) {
  // The dataset workloads' own runs only (a checkpoint's or a serving
  // replica's run reads no dataset).
  if (c.run.workload != kDatagenWorkload &&
      c.run.workload != kDataloadWorkload) {
    return absl::OkStatus();
  }
  if (scope.need_storage && DatasetOf(c).path.empty() &&
      c.storage.path.empty()) {
    return absl::InvalidArgumentError(
        "dataset.path (CKPT_DATASET_PATH) is not set, nor storage.path "
        "(CKPT_DIR_PATH): expected the directory or URI of the dataset, "
        "e.g. CKPT_DATASET_PATH=/mnt/data/imagenet-like");
  }
  if (SampleSpread(c) > DatasetOf(c).sample_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dataset.sample_spread (CKPT_SAMPLE_SPREAD) = ",
        DatasetOf(c).sample_spread,
        ": expected at most dataset.sample_bytes (CKPT_SAMPLE_BYTES), ",
        DatasetOf(c).sample_bytes));
  }
  if (DatasetOf(c).spread_prefixes > static_cast<int>(kMaxSpreadPrefixes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dataset.spread_prefixes (CKPT_DATASET_SPREAD_PREFIXES) = ",
        DatasetOf(c).spread_prefixes, ": expected at most ",
        kMaxSpreadPrefixes));
  }
  if (DatasetOf(c).source == DatasetSource::kListed &&
      c.run.workload == kDatagenWorkload) {
    return absl::InvalidArgumentError(
        "dataset.source (CKPT_DATASET_SOURCE) = listed with run.workload = "
        "datagen: datagen makes a dataset of ckptbench's own; expected "
        "dataset.source = ckptbench, or run.workload = dataload to read "
        "yours");
  }
  if (c.run.workload == kDataloadWorkload &&
      c.RanksPerNode() > kMaxDataloadRanks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster.num_devices (NUM_DEVICES) = ", c.RanksPerNode(),
        " with run.workload = dataload: expected at most ", kMaxDataloadRanks,
        " ranks per node (each runs dataload.num_workers workers)"));
  }
  return absl::OkStatus();
}

absl::Status CheckDatasetApartFromResults(const Config& c,
                                          const std::string& results_dir) {
  const bool dataset_run =
      c.run.workload == kDatagenWorkload || c.run.workload == kDataloadWorkload;
  if (!dataset_run || results_dir.empty()) return absl::OkStatus();
  const std::string dataset = DatasetPath(c);
  if (!LocationsOverlap(dataset, results_dir)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "dataset.path (CKPT_DATASET_PATH) ", dataset,
      " and the results directory ", results_dir,
      " overlap: a dataset's listing would hold the results, and a removal "
      "could take them. Expected --results-dir apart from the dataset"));
}

absl::Status CheckDataloadKeys(const Config& c, const KeyCheckScope& scope) {
  if (auto s = CheckDatasetApartFromCheckpoints(c); !s.ok()) return s;
  if (auto s = CheckEpochCheckpoints(c, scope.need_storage); !s.ok()) return s;
  return CheckAcceleratorSearch(c);
}

}  // namespace ckpt
