// Time to visible: after one node committed a step, another polls its own
// view of the storage until the step is there for a reader: listed, its
// .metadata reading back as the bytes written, and (FUSE mounts, whose
// daemons cache listings and attributes) a shard opening at its size.
// Object stores and FUSE caches can take a while; local disk ~0.
#ifndef CKPTBENCH_NODE_CHECKPOINT_VISIBILITY_H_
#define CKPTBENCH_NODE_CHECKPOINT_VISIBILITY_H_

#include <cstdint>
#include <string>

#include "node/storage/storage_factory.h"

namespace ckpt {

struct VisibleWant {
  uint64_t step = 0;
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

// Polls `checkpoints` (the directory holding step-<n>) every few ms (a
// growing interval, at most 50 ms) until `want` holds or its timeout.
VisibleOutcome PollVisible(const StorageLocation& checkpoints,
                           const VisibleWant& want);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_VISIBILITY_H_
