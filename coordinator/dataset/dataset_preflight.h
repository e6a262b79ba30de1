// A dataset run's checks before its first round (Coordinator::Preflight
// for datagen and dataload), from what each storage owner's node found
// where the dataset lives (an Inspect's DatasetLook: its manifest, the
// free space there, the node's memory). What they refuse is input to fix
// (exit 2), found before anything is written or read:
//  - datagen: a manifest of another dataset there; a dataset larger than
//    the file system holding it has free (local file systems only: a FUSE
//    mount's figures are made up, object stores have none);
//  - dataload of a dataset of ckptbench's: no manifest; a manifest whose
//    totals are not its layout's; an epoch that leaves a rank no sample (a
//    map-style share of 0, or fewer objects than ranks when iterable);
//    a plan whose index would not fit the node's memory
//    (common/dataset/dataload_memory.h).
// A listed dataset is known only at its epoch's prepare: the node checks
// it there (exit 1).
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATASET_PREFLIGHT_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATASET_PREFLIGHT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/config.h"
#include "common/inspection.h"
#include "coordinator/run_context.h"

namespace ckpt {

// Whether the run's preflight looks at its dataset: datagen (making) and
// dataload of a dataset of ckptbench's.
bool LooksAtDataset(const Config& config);

// `looks[i]` from storage owner i, whose view of the dataset is uris[i];
// `nodes`: the run's node count.
absl::Status CheckDatasetBeforeRun(const Config& config,
                                   const std::vector<DatasetLook>& looks,
                                   const std::vector<std::string>& uris,
                                   size_t nodes);

// The dataset workloads' preflight: each storage owner's look at the
// dataset (an Inspect), checked as above; nothing when !LooksAtDataset.
absl::Status PreflightDataset(RunContext& ctx);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATASET_PREFLIGHT_H_
