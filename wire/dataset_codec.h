// A dataset's numbers (common/dataset_layout.h) as they cross the wire, in
// the dataset workloads' own messages (proto/ckptbench/v1/dataset.proto).
// The numbers are checked by the workload that reads them
// (CheckDatasetSpec); a format this build does not know is refused here.
#ifndef CKPTBENCH_WIRE_DATASET_CODEC_H_
#define CKPTBENCH_WIRE_DATASET_CODEC_H_

#include "absl/status/statusor.h"
#include "common/dataset_layout.h"
#include "proto/ckptbench/v1/dataset.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

v1::DatasetSpec ToWire(const DatasetSpec& spec);
absl::StatusOr<DatasetSpec> FromWire(const v1::DatasetSpec& wire);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_DATASET_CODEC_H_
