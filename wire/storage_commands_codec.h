// The storage steps outside a round (common/storage_commands.h) as they
// cross the wire, both ways: the coordinator's jobs as ckptbench.v1
// requests and back on the node, the node's outcomes as replies and back
// on the coordinator. Both sides convert here and nowhere else; a reply's
// `error` is NodeClient's to turn into a Status (a claim `taken` by
// another run is an outcome, not an error).
#ifndef CKPTBENCH_WIRE_STORAGE_COMMANDS_CODEC_H_
#define CKPTBENCH_WIRE_STORAGE_COMMANDS_CODEC_H_

#include "absl/status/statusor.h"
#include "common/storage_commands.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

// Jobs. FromWire: InvalidArgument naming the key for backend settings this
// build does not know or their key refuses (wire/backend_codec.h).
// A commit's .metadata (up to 512 MiB, sent on the round's clock) moves
// from the job into the message and back out, never copied.
v1::CommitRequest ToWire(CommitJob job);
absl::StatusOr<CommitJob> FromWire(v1::CommitRequest wire);
v1::ClaimRequest ToWire(const ClaimJob& job);
absl::StatusOr<ClaimJob> FromWire(const v1::ClaimRequest& wire);
v1::CleanupRequest ToWire(const CleanupJob& job);
absl::StatusOr<CleanupJob> FromWire(const v1::CleanupRequest& wire);
v1::PutResultRequest ToWire(const PutResultJob& job);
absl::StatusOr<PutResultJob> FromWire(const v1::PutResultRequest& wire);

// Outcomes. A claim taken by another run crosses as `taken` with the
// holder in `error` (scrubbed of credentials: it leaves the node).
v1::ClaimReply ToWire(const ClaimOutcome& outcome);
ClaimOutcome FromWire(const v1::ClaimReply& wire);
v1::CleanupReply ToWire(const CleanupOutcome& outcome);
CleanupOutcome FromWire(const v1::CleanupReply& wire);
v1::PutResultReply ToWire(const PutResultOutcome& outcome);
PutResultOutcome FromWire(const v1::PutResultReply& wire);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_STORAGE_COMMANDS_CODEC_H_
