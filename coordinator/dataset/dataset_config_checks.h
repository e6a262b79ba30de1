// The dataset workloads' checks of the configuration (ConfigChecks,
// coordinator/run_workload.h), registered with datagen and dataload: the
// dataset's keys (dataset.*), the data loader's (dataload.*, checkpoints
// during an epoch among them), and the dataset apart from the results.
// Each gets every configuration: a key of theirs set for another
// workload's run is refused here too. Pure; thread-safe.
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATASET_CONFIG_CHECKS_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATASET_CONFIG_CHECKS_H_

#include <string>

#include "absl/status/status.h"
#include "common/config.h"
#include "coordinator/run_workload.h"

namespace ckpt {

// OK, or InvalidArgument naming the key, its value and what was expected.
// The dataset's keys, for a run of either dataset workload (datagen's).
absl::Status CheckDatasetKeys(const Config& c, const KeyCheckScope& scope);
// The data loader's keys (dataload's): the accelerator search, checkpoints
// during an epoch (dataload.checkpoint_every), and a dataset that overlaps
// the checkpoints an epoch saves (<storage.path>/checkpoints).
absl::Status CheckDataloadKeys(const Config& c, const KeyCheckScope& scope);

// A dataset run whose dataset overlaps its results directory (one holds
// the other, or they are one): InvalidArgument naming both, or OK.
absl::Status CheckDatasetApartFromResults(const Config& c,
                                          const std::string& results_dir);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATASET_CONFIG_CHECKS_H_
