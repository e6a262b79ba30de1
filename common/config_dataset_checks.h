// ValidateConfig's checks of the dataset workloads' keys (dataset.*,
// dataload.*), datagen's and dataload's, and of checkpoints during an
// epoch (dataload.checkpoint_every). Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_CONFIG_DATASET_CHECKS_H_
#define CKPTBENCH_COMMON_CONFIG_DATASET_CHECKS_H_

#include <string>

#include "absl/status/status.h"
#include "common/config.h"

namespace ckpt {

// OK, or InvalidArgument naming the key, its value and what was expected.
// A dataset that overlaps the checkpoints a dataload epoch saves
// (dataload.checkpoint_every: <storage.path>/checkpoints) is refused too.
absl::Status CheckDatasetWorkloads(const Config& c, bool need_storage);

// A dataset run whose dataset overlaps its results directory (one holds
// the other, or they are one): InvalidArgument naming both, or OK.
absl::Status CheckDatasetApartFromResults(const Config& c,
                                          const std::string& results_dir);

// Whether two storage locations (paths, file://, s3:// or gs:// URIs)
// overlap: one is the other or holds it, by whole path components
// (relative paths taken from the working directory, "." and ".." folded).
bool LocationsOverlap(const std::string& a, const std::string& b);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CONFIG_DATASET_CHECKS_H_
