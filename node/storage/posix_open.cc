#include "node/storage/posix_open.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/files.h"

namespace ckpt {
namespace {

// The directory part of `path` ("." for a bare name, "/" for "/x").
std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

absl::Status PosixError(const std::string& what, const std::string& path,
                        int err) {
  std::string msg = absl::StrCat(what, " ", path, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(msg);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(msg);
    case ENOSPC:
    case EDQUOT:
      return absl::ResourceExhaustedError(msg);
    case EMFILE:
    case ENFILE:
    case ENOMEM:
      return absl::ResourceExhaustedError(absl::StrCat(
          msg, err == EMFILE ? " (this process's descriptor limit, ulimit -n)"
                             : " (on this machine, not the storage)"));
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG:
    case ELOOP:
    case EINVAL:
    case EEXIST:
      return absl::FailedPreconditionError(msg);
    case EIO:
      return absl::DataLossError(msg);
    default:
      return absl::InternalError(msg);
  }
}

absl::StatusOr<int> OpenBeneath(const std::string& path, int flags,
                                const std::string& root_in) {
  std::string root = root_in.empty() ? DirOf(path) : root_in;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  std::string rel;
  if (root_in.empty()) {
    rel = path.substr(
        path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  } else if (path.size() > root.size() + 1 &&
             path.compare(0, root.size(), root) == 0 &&
             (root == "/" || path[root.size()] == '/')) {
    rel = path.substr(root == "/" ? 1 : root.size() + 1);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not inside ",
                                                   root,
                                                   ", the directory it must "
                                                   "be read from"));
  }
  const int dfd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return PosixError("open directory", root, errno);
  const int open_flags = flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  open_how how{};
  how.flags = static_cast<uint64_t>(open_flags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  int fd = static_cast<int>(
      syscall(SYS_openat2, dfd, rel.c_str(), &how, sizeof(how)));
  int err = fd < 0 ? errno : 0;
  if (fd < 0 && (err == ENOSYS || err == EPERM)) {
    // No openat2 (an older kernel, or a seccomp filter that refuses it):
    // no symbolic link is followed for the last component.
    fd = openat(dfd, rel.c_str(), open_flags | O_NOFOLLOW);
    err = fd < 0 ? errno : 0;
  }
  close(dfd);
  if (fd < 0) {
    if (err == EXDEV) {
      return absl::FailedPreconditionError(absl::StrCat(
          path, " leads outside ", root,
          " (a symbolic link or '..' that leaves it): refused; ckptbench "
          "reads only beneath the directory it was given"));
    }
    if (err == ELOOP) {
      return absl::FailedPreconditionError(absl::StrCat(
          path,
          " is a symbolic link that cannot be followed safely here (a "
          "loop, or no openat2 to keep it beneath ",
          root, "): refused"));
    }
    if (err == EINVAL && (flags & O_DIRECT)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "open ", path,
          " with O_DIRECT: the filesystem does not support direct I/O; "
          "choose io.cache_mode=fadvise or drop"));
    }
    return PosixError("open", path, err);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    err = errno;
    close(fd);
    return PosixError("stat", path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is ", FileKindName(st.st_mode),
                     ": refused (expected a regular file)"));
  }
  const int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    err = errno;
    close(fd);
    return PosixError("fcntl", path, err);
  }
  return fd;
}

}  // namespace ckpt
