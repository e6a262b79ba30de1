// The kind of a node's failure as it crosses gRPC (ckptbench.v1.ErrorKind)
// next to its message: from an absl::Status on the node, back to a status
// code on the coordinator, and the word result.json records.
#ifndef CKPTBENCH_WIRE_ERROR_KIND_H_
#define CKPTBENCH_WIRE_ERROR_KIND_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "common/secrets.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

v1::ErrorKind ErrorKindOf(const absl::Status& status);
// A status with the kind's code and `message` (Unknown for unspecified:
// an older node).
absl::Status StatusOfKind(v1::ErrorKind kind, const std::string& message);
// "retryable", "auth", "not_found", "no_space", "bad_input", "data_loss",
// "internal"; "" for unspecified.
std::string ErrorKindName(v1::ErrorKind kind);
// Sets `error` and `error_kind` of a reply from a failed status. The text
// leaves the node: every credential value it holds is scrubbed from it.
template <typename Reply>
void SetError(const absl::Status& status, Reply* reply) {
  reply->set_error(ScrubSecrets(status.message()));
  reply->set_error_kind(ErrorKindOf(status));
}

// A node's failure as the coordinator sees it: the kind's code, and the
// kind itself carried with it, so NodeErrorKindOf tells a node's failure
// (any kind) from one of the transport's (none).
absl::Status NodeErrorStatus(v1::ErrorKind kind, std::string_view message);
// The kind a node gave its failure; unspecified for a status that did not
// come from a node (it could not be reached), or an older node's.
v1::ErrorKind NodeErrorKindOf(const absl::Status& status);
// Whether `status` is a node's own failure (not the transport's).
bool IsNodeError(const absl::Status& status);
// `status` with `prefix` before its message, its code and kind kept.
absl::Status WithPrefix(const absl::Status& status, std::string_view prefix);

// A reply's `error` as a Status (ok when there is none).
template <typename Reply>
absl::Status StatusOfReply(const Reply& reply) {
  if (reply.error().empty()) return absl::OkStatus();
  return NodeErrorStatus(reply.error_kind(), reply.error());
}
// A step another run claimed first is an answer (`taken`, the holder in
// `error`), not a failure.
inline absl::Status StatusOfReply(const v1::ClaimReply& reply) {
  if (reply.error().empty() || reply.taken()) return absl::OkStatus();
  return NodeErrorStatus(reply.error_kind(), reply.error());
}

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_ERROR_KIND_H_
