// The kind of a node's failure as it crosses gRPC (ckptbench.v1.ErrorKind)
// next to its message: set on a reply from a failed status on the node,
// and a reply's error read back as the node's failure with its kind
// (common/error_kind.h) on the coordinator.
#ifndef CKPTBENCH_WIRE_ERROR_KIND_H_
#define CKPTBENCH_WIRE_ERROR_KIND_H_

#include "absl/status/status.h"
#include "common/error_kind.h"
#include "common/kinds.h"
#include "common/secrets.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

v1::ErrorKind ToWire(ErrorKind kind);
// Never refused: a number this build does not know is unspecified (a
// newer node's kind; its message still says what failed).
ErrorKind FromWire(v1::ErrorKind kind);

// Sets `error` and `error_kind` of a reply from a failed status. The text
// leaves the node: every credential value it holds is scrubbed from it.
// A failure without a message is sent as its code's name: an empty
// `error` would read as success.
template <typename Reply>
void SetError(const absl::Status& status, Reply* reply) {
  if (status.ok()) return;
  reply->set_error(status.message().empty()
                       ? absl::StatusCodeToString(status.code())
                       : ScrubSecrets(status.message()));
  reply->set_error_kind(ToWire(ErrorKindOf(status)));
}

// A reply's `error` as the node's failure (ok when there is none).
template <typename Reply>
absl::Status StatusOfReply(const Reply& reply) {
  if (reply.error().empty()) return absl::OkStatus();
  return NodeErrorStatus(FromWire(reply.error_kind()), reply.error());
}
// A step another run claimed first is an answer (`taken`, the holder in
// `error`), not a failure.
inline absl::Status StatusOfReply(const v1::ClaimReply& reply) {
  if (reply.error().empty() || reply.taken()) return absl::OkStatus();
  return NodeErrorStatus(FromWire(reply.error_kind()), reply.error());
}

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_ERROR_KIND_H_
