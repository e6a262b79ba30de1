// Opening, creating and removing files of a checkpoint on a file system
// (shards, .metadata, claims, the files a load's page-cache check touches)
// as hostile ground: others may plant FIFOs, devices and symbolic links
// there, or swap a step directory for a link while a run uses it.
//  - Nothing blocks in open(2) on a FIFO (O_NONBLOCK); anything but a
//    regular file is refused by kind.
//  - Paths resolve beneath a root: by default the parent of the file's
//    directory, i.e. for a step's file the checkpoints directory the user
//    named (openat2 RESOLVE_BENEATH). Reads follow symbolic links only
//    inside it; writes, creations and removals follow none there, and
//    remove entries relative to the directory they opened, never through a
//    link. Without openat2 (an older kernel, a seccomp filter), no link
//    beneath the root is followed at all.
//  - A refusal tells nothing about what lies outside (no size, no
//    existence).
#ifndef CKPTBENCH_NODE_STORAGE_POSIX_OPEN_H_
#define CKPTBENCH_NODE_STORAGE_POSIX_OPEN_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ckpt {

// The default root of `path`: the parent of its directory ("/a/b" for
// "/a/b/step-1/x"); "/" or "." at the top.
std::string RootOf(const std::string& path);

// Opens `path` with `flags` (O_RDONLY plus O_DIRECT, or O_WRONLY|O_CREAT
// with `mode`), O_CLOEXEC added, beneath `root` ("" = RootOf(path)). A
// write never follows a symbolic link beneath the root. Errors name the
// path and keep errno's text; EINVAL from O_DIRECT stays InvalidArgument.
// `size`, when given, gets the file's size (from the check of its kind).
absl::StatusOr<int> OpenBeneath(const std::string& path, int flags,
                                const std::string& root = "", mode_t mode = 0,
                                uint64_t* size = nullptr);

// OpenBeneath with `root` already open as `root_fd` (the caller's, left
// open): a reader of many files beneath one root (a dataset's samples)
// opens the root once, not once per file. `root` is for messages.
absl::StatusOr<int> OpenBeneathAt(int root_fd, const std::string& root,
                                  const std::string& path, int flags,
                                  mode_t mode = 0, uint64_t* size = nullptr);

// Opens the directory `dir` (O_DIRECTORY) following no symbolic link
// below `root`: by default ("") its parent, so only its last component is
// checked; with a root above it (a dataset's directory), every component
// below the root, so a `samples/` swapped for a link is refused too. `dir`
// equal to `root` opens the root as it was given (links there are the
// user's). A link where a directory must be is FailedPrecondition.
absl::StatusOr<int> OpenDirBeneath(const std::string& dir,
                                   const std::string& root = "");

// Makes `path` and the directories above it up to `root` (which must be
// there: it is the user's, made as given), one mkdirat(2) at a time
// relative to the directory made before, following no symbolic link below
// `root`: a component that is a link or a file is FailedPrecondition
// naming it. `path` must be `root` or beneath it.
absl::Status MakeDirsBeneath(const std::string& path, const std::string& root);

// Removes `names` from `dir` (missing ones are fine) with unlinkat(2)
// relative to the directory opened by OpenDirBeneath(dir, root), then
// `dir` itself if that left it empty, relative to its parent (opened the
// same way): a step directory, or any directory below `root`, swapped for
// a symbolic link is never followed.
absl::Status RemoveBeneath(const std::string& dir,
                           const std::vector<std::string>& names,
                           const std::string& root = "");

// Removes `path` and, if it is a directory, everything under it, relative
// to its parent opened by OpenDirBeneath(its directory, root): no link on
// the way, nor inside (a link is removed, never followed). Missing is fine.
absl::Status RemoveAllBeneath(const std::string& path, const std::string& root);

// Unlinks the regular file `path` names (missing is fine) relative to its
// directory opened by OpenDirBeneath(its directory, root), before a new
// file is written there: another name of the same file (a hard link) keeps
// its bytes. A symbolic link or anything but a regular file there is
// refused (FailedPrecondition), never removed: it is not ckptbench's.
absl::Status UnlinkFileBeneath(const std::string& path,
                               const std::string& root);

// `path` relative to `root` when it lies strictly beneath it ("a/b" for
// "/r/a/b" under "/r"), else "". Purely by name: resolves nothing.
std::string RelativeTo(const std::string& path, const std::string& root);

// "WHAT PATH: <errno's text>" as the status its errno calls for: NotFound,
// PermissionDenied, ResourceExhausted (a full disk, or this process out of
// descriptors or memory: local causes, named as such), FailedPrecondition
// for a path that cannot be one, DataLoss for EIO, else Internal.
absl::Status PosixError(const std::string& what, const std::string& path,
                        int err);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_POSIX_OPEN_H_
