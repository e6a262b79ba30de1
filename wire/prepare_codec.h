// A round's prepare (common/phase_job.h) to and from its ckptbench.v1
// PrepareRequest, for both sides: the coordinator's NodeClient sends what
// its workload built, the node's service reads it. An enum number this
// build does not know is refused naming its field; other values are taken
// as sent and CheckpointWorkload::Prepare checks them. A request that names
// another workload carries only its run, round, name and job.
#ifndef CKPTBENCH_WIRE_PREPARE_CODEC_H_
#define CKPTBENCH_WIRE_PREPARE_CODEC_H_

#include "absl/status/statusor.h"
#include "common/phase_job.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

// Consumes the job: each file's segments are freed as they are converted,
// so the job and the message never both hold a 100,000-tensor plan.
v1::PrepareRequest ToWire(PhaseJob&& job);
v1::PrepareRequest ToWire(const PhaseJob& job);

absl::StatusOr<PhaseJob> FromWire(const v1::PrepareRequest& req);
// Consumes req (names moved, segments freed as they are converted).
absl::StatusOr<PhaseJob> FromWire(v1::PrepareRequest&& req);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_PREPARE_CODEC_H_
