#include "common/files.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/status_macros.h"

namespace ckpt {
namespace {

std::string Errno(int err) { return std::strerror(err); }

// Writes all of `data` to `fd`; false with errno set on failure.
bool WriteAll(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

absl::Status ErrnoStatus(int err, const std::string& message) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case ENOBUFS:
      return absl::ResourceExhaustedError(message);
    case EISDIR:
    case ENAMETOOLONG:
    case ELOOP:
    case EINVAL:
    case EEXIST:
      return absl::FailedPreconditionError(message);
    case EIO:
      return absl::DataLossError(message);
    default:
      return absl::InternalError(message);
  }
}

std::string LocalResourceCause(const std::string& call, int err) {
  const char* name = strerrorname_np(err);
  const std::string what =
      absl::StrCat(call, ": ", Errno(err), " (", name ? name : "?");
  switch (err) {
    case EMFILE: {
      struct rlimit lim;
      std::string limit;
      if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
        limit = absl::StrCat("; RLIMIT_NOFILE ", lim.rlim_cur);
      return absl::StrCat(
          "this process is out of file descriptors: ", what, limit,
          "): raise ulimit -n, or lower the ranks per node (NUM_DEVICES), "
          "files per rank (CKPT_THREAD_COUNT) or requests in flight "
          "(s3.parts_in_flight, s3.ranges_in_flight)");
    }
    case ENFILE:
      return absl::StrCat("this machine is out of file descriptors: ", what,
                          "): other processes hold them all; raise "
                          "fs.file-max or stop some");
    case ENOMEM:
    case ENOBUFS:
      return absl::StrCat("this machine is out of memory: ", what, ")");
    case ENOSPC:
    case EDQUOT:
      return absl::StrCat("no space left on a local device: ", what, ")");
    case EACCES:
    case EPERM:
      return absl::StrCat(
          "this process is not allowed to: ", what,
          "): a local security policy (seccomp, SELinux, AppArmor, a "
          "firewall rule) refuses it");
    default:
      return "";
  }
}

std::string FileKindName(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFLNK:
      return "a symbolic link";
    default:
      return "a special file";
  }
}

absl::Status WriteFileAtomicallyAt(int dir_fd, const std::string& dir,
                                   const std::string& name,
                                   const std::string& text) {
  // A temporary of this write's own, made anew (O_EXCL) and never through
  // a link (O_NOFOLLOW): a directory others can write may hold a planted
  // NAME.tmp -> /some/file, which a fixed name opened with O_TRUNC wrote
  // through. The rename replaces NAME itself, never what it links to.
  static std::atomic<uint64_t> serial{0};
  const std::string tmp =
      absl::StrCat(name, ".tmp-", getpid(), "-", serial.fetch_add(1));
  const std::string shown_tmp = absl::StrCat(dir, "/", tmp);
  auto failed = [&](int err, const std::string& what) {
    if (dir_fd >= 0) unlinkat(dir_fd, tmp.c_str(), 0);  // whole or not at all
    return ErrnoStatus(err,
                       absl::StrCat("cannot write ", what, ": ", Errno(err)));
  };
  if (dir_fd < 0) return failed(errno, shown_tmp);
  const int fd =
      openat(dir_fd, tmp.c_str(),
             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    return ErrnoStatus(
        err, absl::StrCat("cannot write ", shown_tmp, ": ", Errno(err)));
  }
  bool ok = WriteAll(fd, text.data(), text.size());
  int err = ok ? 0 : errno;
  if (ok && fsync(fd) != 0) {
    ok = false;
    err = errno;
  }
  if (close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) return failed(err, shown_tmp);
  if (renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) {
    return failed(errno, absl::StrCat(dir, "/", name));
  }
  // The rename durable: the directory's entries synced (where supported).
  if (fsync(dir_fd) != 0 && errno != EINVAL && errno != ENOSYS &&
      errno != ENOTSUP) {
    return ErrnoStatus(
        errno, absl::StrCat("cannot sync directory ", dir, ": ", Errno(errno)));
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const std::string name =
      slash == std::string::npos ? path : path.substr(slash + 1);
  const int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  absl::Status s = WriteFileAtomicallyAt(dir_fd, dir, name, text);
  if (dir_fd >= 0) close(dir_fd);
  return s;
}

absl::Status KeepIfRegular(int fd, const std::string& subject,
                           const std::string& tail, int opened_flags,
                           uint64_t* size) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return ErrnoStatus(err,
                       absl::StrCat(subject, ": cannot stat it: ", Errno(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(subject, " is ", FileKindName(st.st_mode), tail));
  }
  if (size != nullptr) *size = static_cast<uint64_t>(st.st_size);
  // F_SETFL changes only O_APPEND, O_NONBLOCK, O_DIRECT and O_NOATIME of
  // what it is given: the flags the file was opened with stand for F_GETFL.
  const int flags = opened_flags >= 0 ? opened_flags : fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int err = errno;
    close(fd);
    return ErrnoStatus(err, absl::StrCat(subject, ": ", Errno(err)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> OpenRegularFile(const std::string& path,
                                    const std::string& what, int extra_flags) {
  int fd = open(path.c_str(),
                O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | extra_flags);
  if (fd < 0) {
    const int err = errno;
    return ErrnoStatus(
        err, absl::StrCat(what, " ", path, ": cannot open it: ", Errno(err)));
  }
  RETURN_IF_ERROR(KeepIfRegular(fd, absl::StrCat(what, " ", path),
                                ": expected a regular file"));
  return fd;
}

absl::StatusOr<std::string> ReadRegularFile(const std::string& path,
                                            uint64_t max_bytes,
                                            const std::string& what) {
  auto fd = OpenRegularFile(path, what);
  if (!fd.ok()) return fd.status();
  auto too_big = [&](const std::string& size) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " ", path, " is ", size, ", more than the ",
                     FormatBytes(max_bytes), " allowed for it: expected a ",
                     "smaller file"));
  };
  struct stat st;
  if (fstat(*fd, &st) == 0 && static_cast<uint64_t>(st.st_size) > max_bytes) {
    close(*fd);
    return too_big(FormatBytes(static_cast<uint64_t>(st.st_size)));
  }
  std::string out;
  char buf[64 * 1024];
  while (true) {
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(sizeof(buf), max_bytes + 1 - out.size()));
    ssize_t n = read(*fd, buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(*fd);
      return ErrnoStatus(
          err, absl::StrCat(what, " ", path, ": cannot read it: ", Errno(err)));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) {
      close(*fd);
      return too_big(absl::StrCat("over ", FormatBytes(max_bytes)));
    }
  }
  close(*fd);
  return out;
}

}  // namespace ckpt
