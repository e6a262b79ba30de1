// A dataset's numbers (common/dataset/dataset_layout.h) as they cross the wire,
// in the dataset workloads' own messages (proto/ckptbench/v1/dataset.proto).
// The numbers are checked by the workload that reads them
// (CheckDatasetSpec); a format this build does not know is refused here.
#ifndef CKPTBENCH_WIRE_DATASET_CODEC_H_
#define CKPTBENCH_WIRE_DATASET_CODEC_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/dataset/dataset_layout.h"
#include "proto/ckptbench/v1/dataset.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

v1::DatasetSpec ToWire(const DatasetSpec& spec);
absl::StatusOr<DatasetSpec> FromWire(const v1::DatasetSpec& wire);

// A dataset's format alone (a listed dataset's); nullopt for a format this
// build does not know.
v1::DatasetFormat FormatToWire(DatasetFormat format);
std::optional<DatasetFormat> FormatFromWire(v1::DatasetFormat wire);

// A manifest a node sent (`what` names the message): DataLoss past
// kMaxDatasetManifestBytes, what a node reads of one.
absl::Status CheckManifestOnWire(const std::string& manifest,
                                 const std::string& what);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_DATASET_CODEC_H_
