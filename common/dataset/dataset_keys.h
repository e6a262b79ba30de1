// The dataset workloads' configuration keys, dataset.* and dataload.*:
// appended to the one key table (common/config_keys.h) by BuildConfigKeys.
#ifndef CKPTBENCH_COMMON_DATASET_DATASET_KEYS_H_
#define CKPTBENCH_COMMON_DATASET_DATASET_KEYS_H_

#include <vector>

#include "common/config_keys.h"

namespace ckpt {

// Appends the dataset workloads' keys (dataset.*, then the data loader's)
// to `keys`, and their names, with what each does, to `workloads`.
void AddDatasetKeys(std::vector<KeyDef>* keys,
                    std::vector<WorkloadChoice>* workloads);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_DATASET_DATASET_KEYS_H_
