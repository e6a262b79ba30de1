// The dataset workloads' sections of result.json (coordinator/
// result_section.h): the run's, each placed before the rounds, "dataset",
// datagen's (what a datagen made or found; dataload writes it too: the
// dataset its first epoch read), and "accelerator_search", dataload's
// (dataload.find_accelerators); and a round's, at its head, "epoch",
// dataload's (what an epoch's loader did). Their codecs are
// dataset_result_json.h's.
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATASET_RESULTS_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATASET_RESULTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/dataset/dataload_report.h"
#include "common/dataset/dataset_layout.h"
#include "common/kinds.h"
#include "coordinator/result_section.h"
#include "coordinator/results.h"

namespace ckpt {

inline constexpr char kDatasetSection[] = "dataset";
inline constexpr char kAcceleratorSearchSection[] = "accelerator_search";
inline constexpr char kEpochSection[] = "epoch";

// An epoch's slowest rank's first batch in parts, which add up to its
// first_batch_seconds: its node's start after the common start, then the
// rank's (dataload_report.h); and, before the epoch and not in its time,
// the dataset known (the slowest node's manifest read, or listing). At
// namespace scope: clang does not see a nested struct's default member
// initializers from a std::optional member of the enclosing one.
struct EpochFirstBatch {
  uint32_t rank = 0;
  double node_start_seconds = 0;
  FirstBatchParts parts;
  double dataset_seconds = 0;
};

// A dataload epoch: what the data loader did (a dataload round's "epoch").
struct EpochResult : ResultSection {
  DataAccess access = DataAccess::kMap;
  // The order generator of the sampler and the objects' split
  // (kEpochOrderName); "" in results of versions before it was recorded
  // (a Fisher-Yates shuffle).
  std::string order;
  uint64_t shuffle_buffer = 0;  // iterable: samples per worker's buffer
  bool warm = false;  // caches allowed (dataload.warm_epochs, after the first)
  uint64_t samples = 0, bytes = 0, batches = 0;
  double samples_per_second = 0, mib_per_second = 0;  // total over the round
  double first_batch_seconds = 0;  // the slowest rank's first batch
  double compute_seconds = 0;      // per batch, as asked
  // The emulated accelerators' busy share: compute over each rank's epoch,
  // summed over ranks; MLPerf Storage passes a system at >= 0.9. Only with
  // compute_seconds > 0.
  double utilization = 0;
  using FirstBatch = EpochFirstBatch;
  // Absent in results before it, or when no rank got a batch.
  std::optional<FirstBatch> first_batch;
  uint64_t dataset_samples = 0;
  uint64_t dropped = 0, padded = 0;  // by the sampler
  // The samples read, order-independently, against what the sampler gave
  // out: each exactly once when dropped and padded are 0.
  bool each_sample_once = false;
  struct Rank {
    uint32_t rank = 0;
    int node = 0;
    uint64_t samples = 0, bytes = 0, batches = 0;
    double seconds = 0, first_batch_seconds = 0;
    double compute_seconds = 0, wait_seconds = 0, utilization = 0;
    uint64_t order_digest = 0;
  };
  std::vector<Rank> ranks;
  struct Worker {
    uint32_t rank = 0, worker = 0;
    uint64_t samples = 0, batches = 0;
    uint64_t requests = 0, retries = 0, throttles = 0, new_connections = 0;
    uint64_t objects = 0;  // iterable: the objects it streamed
  };
  std::vector<Worker> workers;
  // Iterable: workers that got no object (fewer objects than ranks x
  // workers).
  uint64_t idle_workers = 0;
  // Step times per window of 100 steps, over ranks: the mean of the
  // ranks' means, and of their variances.
  struct Window {
    uint64_t steps = 0;
    double mean_seconds = 0, variance = 0;
  };
  std::vector<Window> windows;
  Histogram wait;  // per batch, the accelerator waiting for it
  Histogram sample_first_byte, sample_last_byte;  // per sample
  // Checkpoints taken during the epoch (dataload.checkpoint_every): each
  // save's window, from its start (every rank of a node at the batch) to
  // its end (sync: the commit; async: durable and committed), the slowest
  // node's; what the
  // ranks consumed in it against the rest of the epoch. The save's own
  // figures are its round's (rounds[] of phase save, by step).
  struct Save {
    int index = 0;  // the save round's
    uint64_t step = 0;
    uint64_t batch = 0;          // after each rank's batch
    double start_seconds = 0;    // from the epoch's start (node 0's)
    double window_seconds = 0;   // the slowest node's
    double blocked_seconds = 0;  // the ranks held, the slowest node's
    double state_seconds = 0;    // async: the next state, made beside
    // The first rank's wait for the last at the batch (the slowest node's).
    double arrival_spread_seconds = 0;
    uint64_t window_samples = 0;
    double window_samples_per_second = 0, window_utilization = 0;
  };
  std::vector<Save> saves;
  // Outside every save's window.
  double rest_samples_per_second = 0, rest_utilization = 0;

  std::string ToJson(const RunResult& run) const override;
};

// What a datagen run made or found (result.json's "dataset").
// A listed dataset: what its first epoch's listing found and cost
// (seconds the slowest node's, requests and bytes over all nodes).
struct DatasetListingResult {
  uint64_t ignored = 0;  // objects not of the format
  double list_seconds = 0;
  uint64_t list_requests = 0;
  double index_seconds = 0;  // tar: the members indexed
  uint64_t index_requests = 0, index_bytes = 0;
  // tar: shards longer than their archive by more than a record (the rest
  // never read), the bytes past the archives' ends, the first one's name.
  uint64_t overlong_objects = 0, overlong_bytes = 0;
  std::string overlong_first;
};

struct DatasetResult : ResultSection {
  std::string uri;
  // listed: spec holds the format, the sample count and the mean sample
  // size only; totals what the listing found.
  DatasetSource source = DatasetSource::kCkptbench;
  DatasetSpec spec;
  DatasetTotals totals;  // the whole dataset's objects and bytes
  using Listing = DatasetListingResult;
  std::optional<Listing> listing;
  // A manifest matching the request was there: nothing was written.
  bool reused = false;
  bool removed = false;  // ckptbench datagen --remove
  // Removed: what a datagen (or removal) that did not finish wrote, named
  // by its pending manifest (there was no manifest).
  bool unfinished = false;
  // This run's, over all nodes (node-local disks: each node a replica).
  uint64_t written_objects = 0, written_bytes = 0, written_samples = 0;
  uint64_t removed_objects = 0;
  double samples_per_second = 0;  // written samples over the round's time

  std::string ToJson(const RunResult& run) const override;
};

// dataload.find_accelerators: the search for the most accelerators the
// storage keeps at or above `threshold` utilization
// (coordinator/dataset/accelerator_search.h).
struct AcceleratorSearchResult : ResultSection {
  double threshold = 0.9;
  int max_per_node = 0;  // dataload.find_accelerators
  int nodes = 1;
  double compute_seconds = 0;  // per batch
  int batch_size = 0;
  struct Trial {
    int ranks_per_node = 0, accelerators = 0;
    int round_index = 0;  // its epoch's round in rounds[]
    double utilization = 0, samples_per_second = 0;
    uint64_t batches_per_rank = 0;
    bool client_bound = false;  // its round was flagged client_bound
    bool held = false;          // utilization >= threshold
  };
  std::vector<Trial> trials;  // in the order run
  int largest_accelerators = 0, largest_per_node = 0;
  // storage: the first count that fell did so on the storage; client:
  // ckptbench's client was the limit there (client_bound), so the storage
  // may feed more; limit: every count up to max_per_node held.
  SearchEnd ended_by = SearchEnd::kStorage;

  std::string ToJson(const RunResult& run) const override;
};

// The run's sections, or null when it has none.
inline const DatasetResult* DatasetResultOf(const RunResult& r) {
  return SectionAs<DatasetResult>(r.sections, kDatasetSection);
}
inline const AcceleratorSearchResult* AcceleratorSearchOf(const RunResult& r) {
  return SectionAs<AcceleratorSearchResult>(r.sections,
                                            kAcceleratorSearchSection);
}

// A round's epoch, or null when it has none (not a dataload's epoch, or
// one that failed before its figures were summed).
inline const EpochResult* EpochOf(const RoundResult& r) {
  return SectionAs<EpochResult>(r.sections, kEpochSection);
}
// A new epoch section in `r` (replacing any), to be filled before `r` is
// copied or published: a section is shared by the copies of its round.
inline EpochResult& NewEpoch(RoundResult* r) {
  auto e = std::make_shared<EpochResult>();
  EpochResult& ref = *e;
  r->sections[kEpochSection] = std::move(e);
  return ref;
}

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATASET_RESULTS_H_
