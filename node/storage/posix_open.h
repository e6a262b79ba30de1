// Opening files ckptbench reads on a file system (shards, .metadata, the
// files a load's page-cache check touches) as hostile input: never blocking
// in open(2) on a FIFO, refusing anything but a regular file by kind, and
// following a symbolic link only while it stays beneath a root directory
// (openat2 with RESOLVE_BENEATH; where the kernel lacks openat2, no link is
// followed at all). A refusal tells nothing about what lies outside (no
// size, no existence).
#ifndef CKPTBENCH_NODE_STORAGE_POSIX_OPEN_H_
#define CKPTBENCH_NODE_STORAGE_POSIX_OPEN_H_

#include <string>

#include "absl/status/statusor.h"

namespace ckpt {

// Opens `path` with `flags` (O_RDONLY, plus O_DIRECT), O_CLOEXEC added.
// `root`: the directory whose subtree the path must resolve inside;
// "" = the file's own directory. Errors name the path and keep errno's
// text; EINVAL from O_DIRECT stays InvalidArgument.
absl::StatusOr<int> OpenBeneath(const std::string& path, int flags,
                                const std::string& root = "");

// "WHAT PATH: <errno's text>" as the status its errno calls for: NotFound,
// PermissionDenied, ResourceExhausted (a full disk, or this process out of
// descriptors or memory: local causes, named as such), FailedPrecondition
// for a path that cannot be one, DataLoss for EIO, else Internal.
absl::Status PosixError(const std::string& what, const std::string& path,
                        int err);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_POSIX_OPEN_H_
