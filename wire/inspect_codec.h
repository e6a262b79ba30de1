// A look at a checkpoints directory (common/inspection.h) as it crosses
// the wire: the coordinator's InspectJob as ckptbench.v1.InspectRequest
// and back on the node, the node's Inspection as InspectReply and back on
// the coordinator. Both sides convert here and nowhere else.
#ifndef CKPTBENCH_WIRE_INSPECT_CODEC_H_
#define CKPTBENCH_WIRE_INSPECT_CODEC_H_

#include "absl/status/statusor.h"
#include "common/inspection.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

v1::InspectRequest ToWire(const InspectJob& job);
// InvalidArgument naming the field or key for a value this build does not
// know or its key refuses (wire/backend_codec.h).
absl::StatusOr<InspectJob> FromWire(const v1::InspectRequest& wire);

// The node's answer; `error` and `error_kind` are the caller's to set.
v1::InspectReply ToWire(Inspection inspection);
// The reply's values, once checked: step numbers each from 1 to kMaxStep
// (a node reporting step 2^64 - 1 once made the next claim wrap to
// step-0), the newest committed and the .metadata's step too, a .metadata
// of at most kMaxMetadataBytes. A listing that fails is DataLoss, "a
// listing the coordinator cannot use: ...", for the caller to name the
// node that sent it.
absl::StatusOr<Inspection> FromWire(v1::InspectReply wire);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_INSPECT_CODEC_H_
