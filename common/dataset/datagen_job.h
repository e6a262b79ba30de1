// The datagen workload's messages as both sides hold them: what a node is
// asked (DatagenJob: make its share of a dataset, or remove one), what its
// prepare found at the dataset's root (DatagenPrepared), and what it did
// (DatagenReport). The coordinator's side (coordinator/dataset/
// datagen_round.h) builds the job and reads the other two; the node's
// (node/dataset/datagen_workload.h) the reverse; wire/datagen_codec.h
// carries each inside the round protocol's workload bytes, checked.
#ifndef CKPTBENCH_COMMON_DATASET_DATAGEN_JOB_H_
#define CKPTBENCH_COMMON_DATASET_DATAGEN_JOB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/dataset/dataset_layout.h"

namespace ckpt {

// The workload's name on the wire (PhaseJob::workload) and in a node's
// registry of workloads.
inline constexpr char kDatagenWorkload[] = "datagen";

struct DatagenJob {
  // Making: the dataset asked for. Removing: unset (the manifest the node
  // finds says what to remove).
  DatasetSpec spec;
  std::string dataset_uri;  // the node's view of the dataset's root
  // The node's share: node `share_index` of `share_count` takes the
  // objects (shards, or sample files) [k * n / count, (k + 1) * n / count).
  uint32_t share_index = 0;
  uint32_t share_count = 1;
  uint32_t write_threads = 16;    // dataset.write_threads
  uint64_t block_size = 4 << 20;  // io.block_size
  bool fsync = true;              // io.fsync
  BackendOptions backend;
  bool remove = false;
  // Making: this node claims the dataset's path (kMakeClaimDir) and
  // writes the pending manifest at prepare. Removing: it removes the
  // manifest before any object, and the claim after its own.
  bool manifest_owner = false;
  // Making: the run ids of this run's own earlier attempts (a resumed
  // sweep), whose claim the manifest owner may take over.
  std::vector<std::string> take_over;
};

// What a node found at prepare: the manifest at the dataset's root.
struct DatagenPrepared {
  bool manifest_found = false;
  std::string manifest;  // its text, at most kMaxDatasetManifestBytes
  // Making: the manifest matches what was asked, so nothing is written.
  bool reuse = false;
  // Removing: no manifest, but the pending one of a datagen (or removal)
  // that did not finish (`manifest` holds it): what it wrote is removed.
  bool unfinished = false;
};

struct DatagenReport {
  uint64_t objects = 0;  // written or removed
  uint64_t bytes = 0;    // written
  uint64_t samples = 0;  // written
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_DATASET_DATAGEN_JOB_H_
