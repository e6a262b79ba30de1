// The kind of a node's failure as it crosses gRPC (ckptbench.v1.ErrorKind)
// next to its message: from an absl::Status on the node, back to a status
// code on the coordinator, and the word result.json records.
#ifndef CKPTBENCH_WIRE_ERROR_KIND_H_
#define CKPTBENCH_WIRE_ERROR_KIND_H_

#include <string>

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

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_ERROR_KIND_H_
