// Time to visible: after one node committed a step, another polls its own
// view of the storage until the step is there for a reader: listed, its
// .metadata reading back as the bytes written, and (FUSE mounts, whose
// daemons cache listings and attributes) a shard opening at its size.
// Object stores and FUSE caches can take a while; local disk ~0.
#ifndef CKPTBENCH_NODE_CHECKPOINT_VISIBILITY_H_
#define CKPTBENCH_NODE_CHECKPOINT_VISIBILITY_H_

#include <cstdint>
#include <string>

#include "common/inspection.h"
#include "node/storage/storage_factory.h"

namespace ckpt {

// Polls `checkpoints` (the directory holding step-<n>) every few ms (a
// growing interval, at most 50 ms) until `want` holds or its timeout.
VisibleOutcome PollVisible(const StorageLocation& checkpoints,
                           const VisibleWant& want);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_VISIBILITY_H_
