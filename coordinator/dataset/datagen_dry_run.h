// What a sweep's dry run (`ckptbench sweep --dry-run`) says of a point's
// `prepare: datagen`: the dataset the datagen run will write, where, and
// whether it is there already or fits (the registry's PrepareDescription
// of datagen, coordinator/run_workload.h).
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATAGEN_DRY_RUN_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATAGEN_DRY_RUN_H_

#include <optional>
#include <string>

#include "common/config.h"
#include "common/inspection.h"

namespace ckpt {

// The line for the dataset `config` describes at its dataset path: its
// objects, bytes and samples; "(it is: reused)" when `look` found a
// manifest there; the free space `look` found, or "DOES NOT FIT" with
// *fits set false when that is less than the dataset. Only the line when
// no look was taken or it knows no free space.
std::string DescribeDatasetPrepare(const Config& config,
                                   const std::optional<DatasetLook>& look,
                                   bool* fits);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATAGEN_DRY_RUN_H_
