#include "node/storage/posix_open.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/names.h"
#include "common/status_macros.h"

namespace ckpt {
namespace {

// The directory part of `path` ("." for a bare name, "/" for "/x").
std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string JoinName(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

}  // namespace

absl::Status PosixError(const std::string& what, const std::string& path,
                        int err) {
  // A local shortage is said as the HTTP layer says it (common/files.h).
  const bool local = err == EMFILE || err == ENFILE || err == ENOMEM;
  const std::string msg =
      absl::StrCat(what, " ", path, ": ",
                   local ? LocalResourceCause(what, err) : std::strerror(err));
  // Storage paths read ENOTDIR as a file where a directory must be (a
  // path that cannot be one), not as something missing.
  if (err == ENOTDIR) return absl::FailedPreconditionError(msg);
  return ErrnoStatus(err, msg);
}

std::string RootOf(const std::string& path) { return DirOf(DirOf(path)); }

std::string RelativeTo(const std::string& path, const std::string& root) {
  if (path.empty()) return "";
  if (root == "." && path.find('/') == std::string::npos) return path;
  if (root == "." && path.rfind("./", 0) == 0) return path.substr(2);
  if (root == "/")
    return path.size() > 1 && path[0] == '/' ? path.substr(1) : "";
  if (path.size() > root.size() + 1 &&
      path.compare(0, root.size(), root) == 0 && path[root.size()] == '/') {
    return path.substr(root.size() + 1);
  }
  if (root == "." && path[0] != '/') return path;
  return "";
}

namespace {

constexpr char kOutside[] =
    " (a symbolic link or '..' that leaves it): refused; ckptbench reads "
    "and writes only beneath the directory it was given";

std::vector<std::string> Components(const std::string& rel) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= rel.size()) {
    size_t end = rel.find('/', begin);
    if (end == std::string::npos) end = rel.size();
    if (end > begin) parts.push_back(rel.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

// openat2 beneath `dfd`, or (no openat2) a walk of the components with
// O_NOFOLLOW everywhere. Returns the descriptor or -1 with errno set.
int OpenAt2(int dfd, const std::string& rel, int flags, mode_t mode,
            bool no_symlinks) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags);
  how.mode = (flags & O_CREAT) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
                (no_symlinks ? RESOLVE_NO_SYMLINKS : 0);
  const int fd = static_cast<int>(
      syscall(SYS_openat2, dfd, rel.c_str(), &how, sizeof(how)));
  if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return fd;
  const std::vector<std::string> parts = Components(rel);
  int at = dfd;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "..") {
      if (at != dfd) close(at);
      errno = EXDEV;
      return -1;
    }
    const bool last = i + 1 == parts.size();
    const int next =
        last ? openat(at, parts[i].c_str(), flags | O_NOFOLLOW, mode)
             : openat(at, parts[i].c_str(),
                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int err = errno;
    if (at != dfd) close(at);
    if (next < 0) {
      errno = err;
      return -1;
    }
    at = next;
  }
  return at == dfd ? -1 : at;
}

absl::Status Refusal(const std::string& path, const std::string& root, int err,
                     int flags) {
  if (err == EXDEV) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " leads outside ", root, kOutside));
  }
  if (err == ELOOP) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " is reached through a symbolic link that is not followed here ",
        "(a loop, a write, or no openat2 to keep it beneath ", root,
        "): refused"));
  }
  if (err == ENXIO) {  // O_NONBLOCK on a socket, or a device without driver
    return absl::FailedPreconditionError(absl::StrCat(
        path, " is a socket or a device: refused (expected a regular file)"));
  }
  if (err == EEXIST) {  // O_EXCL: the caller decides what to do with it
    return absl::AlreadyExistsError(absl::StrCat(path, " exists"));
  }
  if (err == EINVAL && (flags & O_DIRECT)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "open ", path,
        " with O_DIRECT: the filesystem does not support direct I/O; "
        "choose io.cache_mode=fadvise or drop"));
  }
  return PosixError("open", path, err);
}

absl::Status NotInside(const std::string& path, const std::string& root) {
  return absl::InvalidArgumentError(absl::StrCat(
      path, " is not inside ", root, ", the directory it must be under"));
}

// `rel` is `path` relative to `root` (not empty), `root_fd` the root open.
absl::StatusOr<int> OpenRelative(int root_fd, const std::string& root,
                                 const std::string& path,
                                 const std::string& rel, int flags, mode_t mode,
                                 uint64_t* size) {
  const bool writes = (flags & (O_WRONLY | O_RDWR | O_CREAT)) != 0;
  const int open_flags = flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  const int fd =
      OpenAt2(root_fd, rel, open_flags, mode, /*no_symlinks=*/writes);
  if (fd < 0) return Refusal(path, root, errno, flags);
  RETURN_IF_ERROR(KeepIfRegular(fd, path, ": refused (expected a regular file)",
                                open_flags, size));
  return fd;
}

}  // namespace

absl::StatusOr<int> OpenBeneathAt(int root_fd, const std::string& root,
                                  const std::string& path, int flags,
                                  mode_t mode, uint64_t* size) {
  const std::string rel = RelativeTo(path, root);
  if (rel.empty()) return NotInside(path, root);
  return OpenRelative(root_fd, root, path, rel, flags, mode, size);
}

absl::StatusOr<int> OpenBeneath(const std::string& path, int flags,
                                const std::string& root_in, mode_t mode,
                                uint64_t* size) {
  std::string root = root_in.empty() ? RootOf(path) : root_in;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  const std::string rel = RelativeTo(path, root);
  if (rel.empty()) return NotInside(path, root);
  const int dfd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return PosixError("open directory", root, errno);
  absl::StatusOr<int> fd =
      OpenRelative(dfd, root, path, rel, flags, mode, size);
  close(dfd);
  return fd;
}

namespace {

std::string Stripped(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

absl::Status NotADirectory(const std::string& dir, const std::string& root) {
  return absl::FailedPreconditionError(absl::StrCat(
      dir,
      " is not a directory (a symbolic link or a file where a directory "
      "must be): refused; ckptbench follows no link below ",
      root));
}

// Opens `dir` plainly: a root as the user gave it.
absl::StatusOr<int> OpenPlainDir(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return PosixError("open directory", dir, errno);
  return fd;
}

}  // namespace

absl::StatusOr<int> OpenDirBeneath(const std::string& dir_in,
                                   const std::string& root_in) {
  const std::string dir = Stripped(dir_in);
  const std::string root = root_in.empty() ? DirOf(dir) : Stripped(root_in);
  if (!root_in.empty() && dir == root) return OpenPlainDir(root);
  const std::string rel = RelativeTo(dir, root);
  if (rel.empty() || IsDotName(rel)) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": not a directory ckptbench may work in"));
  }
  ASSIGN_OR_RETURN(const int pfd, OpenPlainDir(root));
  const int fd = OpenAt2(pfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0,
                         /*no_symlinks=*/true);
  const int err = fd < 0 ? errno : 0;
  close(pfd);
  if (fd < 0) {
    if (err == ELOOP || err == ENOTDIR || err == EXDEV) {
      return NotADirectory(dir, root);
    }
    return PosixError("open directory", dir, err);
  }
  return fd;
}

absl::Status MakeDirsBeneath(const std::string& path_in,
                             const std::string& root_in) {
  const std::string path = Stripped(path_in);
  const std::string root = Stripped(root_in);
  const std::string rel = path == root ? "" : RelativeTo(path, root);
  if (path != root && rel.empty()) return NotInside(path, root);
  int at = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (at < 0) return PosixError("open directory", root, errno);
  std::string made = root;
  for (const std::string& part : Components(rel)) {
    made = JoinName(made, part);
    if (IsDotName(part)) {
      close(at);
      return absl::InvalidArgumentError(absl::StrCat(
          made, ": a '.' or '..' component; expected a name inside ", root));
    }
    if (mkdirat(at, part.c_str(), 0777) != 0 && errno != EEXIST) {
      const int err = errno;
      close(at);
      return PosixError("create directory", made, err);
    }
    const int next = openat(at, part.c_str(),
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int err = errno;
    close(at);
    if (next < 0) {
      if (err == ELOOP || err == ENOTDIR) return NotADirectory(made, root);
      return PosixError("open directory", made, err);
    }
    at = next;
  }
  close(at);
  return absl::OkStatus();
}

absl::Status RemoveBeneath(const std::string& dir_in,
                           const std::vector<std::string>& names,
                           const std::string& root_in) {
  const std::string dir = Stripped(dir_in);
  auto dfd = OpenDirBeneath(dir, root_in);
  if (!dfd.ok()) {
    if (absl::IsNotFound(dfd.status())) return absl::OkStatus();
    return dfd.status();
  }
  for (const auto& n : names) {
    if (n.empty() || n.find('/') != std::string::npos || IsDotName(n)) {
      close(*dfd);
      return absl::InvalidArgumentError(
          absl::StrCat("refusing to remove '", n, "' from ", dir,
                       ": not a name of an entry"));
    }
    if (unlinkat(*dfd, n.c_str(), 0) != 0 && errno != ENOENT) {
      const int err = errno;
      close(*dfd);
      return PosixError("remove", JoinName(dir, n), err);
    }
  }
  close(*dfd);
  // The directory itself, if that left it empty, relative to its parent:
  // unlinkat never follows a link it finds there instead. Below a root,
  // the parent is opened through no link either.
  const std::string parent = DirOf(dir);
  const std::string root = root_in.empty() ? "" : Stripped(root_in);
  absl::StatusOr<int> pfd = root.empty() || parent == root || dir == root
                                ? OpenPlainDir(parent)
                                : OpenDirBeneath(parent, root);
  if (!pfd.ok()) return pfd.status();
  const std::string base =
      dir.substr(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/') + 1);
  const int rc = unlinkat(*pfd, base.c_str(), AT_REMOVEDIR);
  const int err = errno;
  close(*pfd);
  // ENOTDIR: the root is a symbolic link the user chose (resolved as
  // given): the link stays, as a directory that is not empty would.
  if (rc != 0 && err != ENOENT && err != ENOTEMPTY && err != EEXIST &&
      !(err == ENOTDIR && dir == root)) {
    return PosixError("remove directory", dir, err);
  }
  return absl::OkStatus();
}

namespace {

constexpr int kMaxRemoveDepth = 64;

// Removes the entry `name` of the directory `dfd` and, for a directory,
// what it holds first; nothing is followed.
absl::Status RemoveAllAt(int dfd, const std::string& name,
                         const std::string& shown, int depth) {
  struct stat st;
  if (fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return PosixError("stat", shown, errno);
  }
  if (S_ISDIR(st.st_mode)) {
    if (depth >= kMaxRemoveDepth) {
      return absl::FailedPreconditionError(
          absl::StrCat(shown, ": more than ", kMaxRemoveDepth,
                       " directories deep; not removed"));
    }
    const int sub = openat(dfd, name.c_str(),
                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) return PosixError("open directory", shown, errno);
    DIR* d = fdopendir(sub);
    if (d == nullptr) {
      const int err = errno;
      close(sub);
      return PosixError("list", shown, err);
    }
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      if (!IsDotName(e->d_name)) names.push_back(e->d_name);
    }
    absl::Status s;
    for (const std::string& n : names) {
      s = RemoveAllAt(dirfd(d), n, JoinName(shown, n), depth + 1);
      if (!s.ok()) break;
    }
    closedir(d);
    if (!s.ok()) return s;
  }
  if (unlinkat(dfd, name.c_str(), S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) !=
          0 &&
      errno != ENOENT) {
    return PosixError("remove", shown, errno);
  }
  return absl::OkStatus();
}

// The last component of `p` (`path` as given, for the message): a name of
// an entry, never empty, "." or "..".
absl::StatusOr<std::string> EntryToRemove(const std::string& path,
                                          const std::string& p) {
  std::string name = p.substr(p.rfind('/') + 1);
  if (name.empty() || IsDotName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("refusing to remove ", path, ": not a name of an entry"));
  }
  return name;
}

}  // namespace

absl::Status RemoveAllBeneath(const std::string& path,
                              const std::string& root) {
  const std::string p = Stripped(path);
  ASSIGN_OR_RETURN(const std::string name, EntryToRemove(path, p));
  auto dfd = OpenDirBeneath(DirOf(p), root);
  if (!dfd.ok()) {
    if (absl::IsNotFound(dfd.status())) return absl::OkStatus();
    return dfd.status();
  }
  absl::Status s = RemoveAllAt(*dfd, name, p, 0);
  close(*dfd);
  return s;
}

absl::Status UnlinkFileBeneath(const std::string& path,
                               const std::string& root) {
  const std::string dir = DirOf(path);
  ASSIGN_OR_RETURN(const std::string name, EntryToRemove(path, path));
  ASSIGN_OR_RETURN(const int dfd, OpenDirBeneath(dir, root));
  struct stat st;
  if (fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    const int err = errno;
    close(dfd);
    if (err == ENOENT) return absl::OkStatus();
    return PosixError("stat", path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    close(dfd);
    return absl::FailedPreconditionError(absl::StrCat(
        path,
        " is a symbolic link, a directory or a special file where ckptbench "
        "writes a file: refused (not written through, not removed)"));
  }
  const int rc = unlinkat(dfd, name.c_str(), 0);
  const int err = errno;
  close(dfd);
  if (rc != 0 && err != ENOENT) return PosixError("remove", path, err);
  return absl::OkStatus();
}

}  // namespace ckpt
