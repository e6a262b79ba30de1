// A look at a checkpoints directory from one node, as both sides know it
// (ckptbench.v1.InspectRequest and InspectReply on the wire;
// wire/inspect_codec.h converts): the steps there, the .metadata a load
// restores, a probe that the directory is writable, the node's GPUs, or
// (after a save) how long the step took to become visible to this node.
#ifndef CKPTBENCH_COMMON_INSPECTION_H_
#define CKPTBENCH_COMMON_INSPECTION_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/config.h"
#include "common/kinds.h"

namespace ckpt {

// Time to visible: what the polling node waits for.
struct VisibleWant {
  uint64_t step = 0;  // 0: not asked
  uint64_t metadata_size = 0;
  uint64_t metadata_xxh3 = 0;
  std::string shard;  // "" = do not open one
  uint64_t shard_size = 0;
  double timeout_seconds = 60;
};

struct VisibleOutcome {
  bool visible = false;
  int64_t at_unix_ns = 0;   // node wall clock, when visible
  double poll_seconds = 0;  // from the call to visible (or giving up)
  uint32_t polls = 0;
  double last_poll_seconds = 0;  // the last poll's own time
  std::string lacked;            // what the last failed poll lacked; "" if none
};

struct StepListing {
  std::vector<std::pair<uint64_t, bool>> steps;  // (step, committed)
  uint64_t newest_committed = 0;                 // 0 = none
  std::string newest_metadata;                   // of metadata_step when given
  uint64_t metadata_step = 0;  // the step newest_metadata is from
  // Step-like entries past kMaxStep, ignored.
  std::vector<std::string> ignored;
};

// A dataset's look from one node, before a datagen or dataload run's
// first round: its manifest, what the file system holding it has free,
// and the memory the node may still use.
struct DatasetLook {
  bool manifest_found = false;
  std::string manifest;     // as read, at most kMaxDatasetManifestBytes
  bool free_known = false;  // a local file system's figure (not FUSE's)
  uint64_t free_bytes = 0;
  std::string filesystem;     // "ext4 at /"
  uint64_t memory_bytes = 0;  // common/memory.h; 0: unknown
  std::string memory_source;
};

// What the coordinator asks. One of: a GPU check (accelerator gpu, maybe
// with no directory), time to visible (visible.step set: nothing else is
// done), a dataset's look (dataset_uri set: nothing else is done), or a
// listing of `steps_uri`.
struct InspectJob {
  std::string run_id;
  std::string steps_uri;  // the run's steps (step-<n>): Config::StepsPath
  std::string dataset_uri;
  // Create the directory and write then delete a probe file of this run's,
  // so an unwritable target fails before any round.
  bool probe_write = false;
  // The newest committed step's .metadata, or metadata_step's when not 0.
  bool want_metadata = false;
  uint64_t metadata_step = 0;
  BackendOptions backend;
  Accelerator accelerator = Accelerator::kCpu;
  VisibleWant visible;
  // Only open the storage at steps_uri, sending no request.
  bool open_only = false;
};

// What the node found (the parts its job asked for).
struct Inspection {
  StepListing listing;
  std::string gpus;  // "2 x NVIDIA H100 80GB HBM3" (a GPU check)
  VisibleOutcome visible;
  DatasetLook dataset;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_INSPECTION_H_
