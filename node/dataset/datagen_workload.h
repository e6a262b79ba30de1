// The node's side of `ckptbench datagen` (workload "datagen"): makes its
// share of a dataset's objects (tar shards or sample files,
// common/dataset/dataset_layout.h) with dataset.write_threads writers, each
// object written, synced (io.fsync) and closed before it counts; or, asked to
// remove one, removes the manifest (its owner) and then exactly the
// objects the manifest names. At prepare it reads the dataset's manifest:
// one that matches what was asked means the dataset is there, and nothing
// is written (reused); one that does not fails the round naming each
// difference. The coordinator's side is coordinator/dataset/datagen_round.h.
#ifndef CKPTBENCH_NODE_DATASET_DATAGEN_WORKLOAD_H_
#define CKPTBENCH_NODE_DATASET_DATAGEN_WORKLOAD_H_

#include <memory>

#include "common/dataset/datagen_job.h"
#include "node/round/node_workload.h"

namespace ckpt {

// Registered under kDatagenWorkload (common/dataset/datagen_job.h).

std::unique_ptr<NodeWorkload> NewDatagenWorkload();

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_DATAGEN_WORKLOAD_H_
