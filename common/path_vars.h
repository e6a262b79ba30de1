// ${NAME} in a path from the command line, replaced by the environment
// variable NAME: how a Kubernetes manifest gives each JobSet its own results
// directory (--results-dir /results/${JOBSET_NAME}-${JOBSET_UID}) without
// relying on the kubelet's $(VAR) expansion, which other runners (podman
// kube play) do not do. A value must be one path component of letters,
// digits, '.', '_' and '-' (not "." or ".."): an environment variable cannot
// move the path elsewhere. Thread-safe (reads the environment).
#ifndef CKPTBENCH_COMMON_PATH_VARS_H_
#define CKPTBENCH_COMMON_PATH_VARS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace ckpt {

// `path` with every ${NAME} replaced; `what` names the path's source in
// errors (e.g. "--results-dir"). A '$' not followed by '{' stays as it is.
absl::StatusOr<std::string> ExpandPathVars(std::string_view path,
                                           std::string_view what);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_PATH_VARS_H_
