// The node's side of a dataload epoch (workload "dataload"): reads the
// dataset's manifest at prepare, splits the epoch's order across the
// world's ranks as DistributedSampler does (common/dataset/epoch_order.h),
// keeps the objects its ranks read cold (io.cache_mode; a warm epoch allows
// caches), gives every worker of every rank a backend of its own; then
// runs each rank's loader (rank_loader.h) from the start instant and
// reports per rank, per worker and per sample. The coordinator's side is
// coordinator/dataset/dataload_round.h.
#ifndef CKPTBENCH_NODE_DATASET_DATALOAD_WORKLOAD_H_
#define CKPTBENCH_NODE_DATASET_DATALOAD_WORKLOAD_H_

#include <memory>

#include "common/dataset/dataload_job.h"
#include "node/round/node_workload.h"

namespace ckpt {

// Registered under kDataloadWorkload (common/dataset/dataload_job.h).

// A node's dataload epochs, each a new instance; the TAR index one of them
// made serves the node's later epochs while the listing is unchanged (a
// factory per node: nothing is shared between nodes of one process).
NodeWorkloadFactory DataloadWorkloads();

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_DATALOAD_WORKLOAD_H_
