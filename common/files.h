// Small file helpers: writing result files atomically, and opening and
// reading files ckptbench did not make (credentials, configs, results read
// back) as hostile input: never blocking on a FIFO or device, refusing
// anything but a regular file, and reading at most a bound. Thread-safe (no
// shared state).
#ifndef CKPTBENCH_COMMON_FILES_H_
#define CKPTBENCH_COMMON_FILES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ckpt {

// Writes `text` to `path` through a temporary of its own (PATH.tmp-PID-N,
// created with O_EXCL|O_NOFOLLOW) and a rename, so a reader sees the old
// file or the whole new one. Errors name the file and the cause (errno's
// text).
absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text);
// The same as `name` in the directory open as `dir_fd` (shown as `dir` in
// errors; a negative `dir_fd` is that open's failure, errno still set):
// the temporary, the rename and the directory's sync all go through that
// descriptor, so a directory swapped for a link meanwhile is not written
// through.
absl::Status WriteFileAtomicallyAt(int dir_fd, const std::string& dir,
                                   const std::string& name,
                                   const std::string& text);

// Opens `path` read-only (plus `extra_flags`, e.g. O_DIRECT) without
// blocking: O_NONBLOCK for the open (a FIFO with no writer would block in
// open(2) forever), cleared after. Anything but a regular file (a FIFO, a
// socket, a device, a directory) is closed again and refused, naming
// `what` and the path and what it is. Returns the descriptor (O_CLOEXEC).
// NotFound when it does not exist.
absl::StatusOr<int> OpenRegularFile(const std::string& path,
                                    const std::string& what,
                                    int extra_flags = 0);

// The last steps of opening a file ckptbench did not make, on `fd` opened
// with O_NONBLOCK: anything but a regular file is refused as "`subject` is
// a FIFO`tail`" and `fd` closed; else O_NONBLOCK is cleared, and `fd` is
// the caller's. Errors keep errno's text. `opened_flags`, when known (the
// flags `fd` was opened with), spares the F_GETFL a per-sample open would
// pay; `size`, when given, gets the file's size from the same fstat.
absl::Status KeepIfRegular(int fd, const std::string& subject,
                           const std::string& tail, int opened_flags = -1,
                           uint64_t* size = nullptr);

// The whole of the regular file `path`, at most `max_bytes` of it: a
// larger file (or one that grows past the bound while read, such as a
// file under /proc) is refused naming `what`, the path and the bound,
// without reading more than max_bytes + 1 bytes.
absl::StatusOr<std::string> ReadRegularFile(const std::string& path,
                                            uint64_t max_bytes,
                                            const std::string& what);

// What kind of file a stat mode is, for errors: "a FIFO", "a directory".
std::string FileKindName(unsigned mode);

// A status for a failed system call's errno with `message`, the one table
// of them: NotFound (ENOENT, ENOTDIR), PermissionDenied (EACCES, EPERM,
// EROFS), ResourceExhausted (ENOSPC, EDQUOT, EMFILE, ENFILE, ENOMEM,
// ENOBUFS), FailedPrecondition for a path that cannot be one (EISDIR,
// ENAMETOOLONG, ELOOP, EINVAL, EEXIST), DataLoss (EIO), else Internal.
absl::Status ErrnoStatus(int err, const std::string& message);

// When `err` is a shortage or refusal of this process's or this machine's
// own (EMFILE, ENFILE, ENOMEM, ENOBUFS, ENOSPC, EDQUOT, EACCES, EPERM),
// what it means and what to do, naming `call` and the errno: "this process
// is out of file descriptors: socket(): Too many open files (EMFILE;
// RLIMIT_NOFILE 64): raise ulimit -n, ...". "" for any other errno.
std::string LocalResourceCause(const std::string& call, int err);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_FILES_H_
