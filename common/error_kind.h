// A node's failure and its kind (common/kinds.h: ErrorKind) as a status:
// which kind a status code is, which code a kind comes back as, and a node's
// failure carried with its kind, so the coordinator tells a node's failure
// (any kind) from the transport's (none). How a kind crosses the wire is
// wire/error_kind.h's.
#ifndef CKPTBENCH_COMMON_ERROR_KIND_H_
#define CKPTBENCH_COMMON_ERROR_KIND_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "common/kinds.h"

namespace ckpt {

// The kind of a failed status (by its code); internal for codes of no
// other kind.
ErrorKind ErrorKindOf(const absl::Status& status);
// A status with the kind's code and `message` (Unknown for unspecified:
// an older node).
absl::Status StatusOfKind(ErrorKind kind, const std::string& message);

// A node's failure as the coordinator sees it: the kind's code, and the
// kind itself carried with it (a payload).
absl::Status NodeErrorStatus(ErrorKind kind, std::string_view message);
// The kind a node gave its failure; unspecified for a status that did not
// come from a node (it could not be reached), or an older node's.
ErrorKind NodeErrorKindOf(const absl::Status& status);
// Whether `status` is a node's own failure (not the transport's).
bool IsNodeError(const absl::Status& status);
// `status` with `prefix` before its message, its code and kind kept.
absl::Status WithPrefix(const absl::Status& status, std::string_view prefix);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_ERROR_KIND_H_
