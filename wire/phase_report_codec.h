// What a node measured in a phase (common/phase_outcome.h) to and from its
// ckptbench.v1 PhaseReport, for both sides: the node's service sends its
// agent's and workloads' outcomes through ToWire, the coordinator's
// NodeClient reads every report through FromWire. A reply's `error`
// becomes the outcome's status with its kind (StatusOfReply).
#ifndef CKPTBENCH_WIRE_PHASE_REPORT_CODEC_H_
#define CKPTBENCH_WIRE_PHASE_REPORT_CODEC_H_

#include "absl/status/statusor.h"
#include "common/phase_outcome.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

// Latencies of operations that saw none are left out.
v1::PhaseReport ToWire(const PhaseOutcome& o);
// Refused (InvalidArgument, saying what is wrong, for the coordinator to
// name the node) where the report cannot be held as its values: a latency
// of an operation this build does not know (open, write, read, fsync,
// close; one sent twice is merged), or a histogram with more buckets than this
// build's, counts that overflow or do not add up to its count, or a
// minimum above its maximum. What the values say (ranks, files, times) is
// the reader's to check (coordinator/reply_check.h).
absl::StatusOr<PhaseOutcome> FromWire(const v1::PhaseReport& r);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_PHASE_REPORT_CODEC_H_
