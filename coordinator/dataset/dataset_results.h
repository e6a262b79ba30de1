// The dataset workloads' sections of result.json (coordinator/
// result_section.h), each placed before the rounds: "dataset", datagen's
// (what a datagen made or found; dataload writes it too: the dataset its
// first epoch read), and "accelerator_search", dataload's
// (dataload.find_accelerators). Their codecs are dataset_result_json.h's.
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATASET_RESULTS_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATASET_RESULTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/dataset/dataset_layout.h"
#include "common/kinds.h"
#include "coordinator/result_section.h"
#include "coordinator/results.h"

namespace ckpt {

inline constexpr char kDatasetSection[] = "dataset";
inline constexpr char kAcceleratorSearchSection[] = "accelerator_search";

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

  std::string ToJson() const override;  // dataset_result_json.cc
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

  std::string ToJson() const override;  // dataset_result_json.cc
};

// The run's sections, or null when it has none.
inline const DatasetResult* DatasetResultOf(const RunResult& r) {
  return SectionAs<DatasetResult>(r.sections, kDatasetSection);
}
inline const AcceleratorSearchResult* AcceleratorSearchOf(const RunResult& r) {
  return SectionAs<AcceleratorSearchResult>(r.sections,
                                            kAcceleratorSearchSection);
}

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATASET_RESULTS_H_
