// ValidateConfig's checks of the dataset workloads' keys (dataset.*,
// dataload.*), datagen's and dataload's, and of checkpoints during an
// epoch (dataload.checkpoint_every). Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_CONFIG_DATASET_CHECKS_H_
#define CKPTBENCH_COMMON_CONFIG_DATASET_CHECKS_H_

#include "absl/status/status.h"
#include "common/config.h"

namespace ckpt {

// OK, or InvalidArgument naming the key, its value and what was expected.
absl::Status CheckDatasetWorkloads(const Config& c, bool need_storage);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CONFIG_DATASET_CHECKS_H_
