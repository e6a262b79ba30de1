#include "node/storage/posix_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "common/names.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/storage/posix_open.h"

namespace ckpt {
namespace {

constexpr int kMaxListDepth = 64;

absl::Status ListingAborted(const std::string& root, size_t files) {
  return absl::AbortedError(absl::StrCat("listing ", EscapeForTerminal(root),
                                         ": stopped after ", files,
                                         " files: the run was aborted"));
}

// A directory of millions of entries: the abort flag and the memory bound,
// looked at every few thousand entries, not only per directory.
absl::Status CheckBounds(const ListingBounds& bounds, const std::string& root,
                         size_t files) {
  if (bounds.abort != nullptr && bounds.abort->load()) {
    return ListingAborted(root, files);
  }
  const uint64_t held = files * (kListedEntryBytes + 64);
  if (bounds.memory_bytes != 0 && held > bounds.memory_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "listing ", EscapeForTerminal(root), ": its ", files,
        " files would hold about ", held, " bytes, more than the ",
        bounds.memory_bytes,
        " (80% of the memory available) this node may use for it"));
  }
  return absl::OkStatus();
}

absl::Status WalkTree(int fd, const std::string& root,
                      const std::string& prefix, int depth,
                      const ListingBounds& bounds,
                      std::vector<ListedObject>* out);

// The entry `n` of the directory `dir`, `name` below the root: a directory
// walked, a regular file listed, anything else refused.
absl::Status AddEntry(int dir, const std::string& n, const std::string& name,
                      const std::string& root, int depth,
                      const ListingBounds& bounds,
                      std::vector<ListedObject>* out) {
  struct stat st;
  if (fstatat(dir, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return PosixError("stat", EscapeForTerminal(JoinPath(root, name)), errno);
  }
  if (S_ISDIR(st.st_mode)) {
    if (depth >= kMaxListDepth) {
      return absl::FailedPreconditionError(
          absl::StrCat(EscapeForTerminal(JoinPath(root, name)), ": more than ",
                       kMaxListDepth, " directories deep"));
    }
    const int sub =
        openat(dir, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) {
      return PosixError("open directory",
                        EscapeForTerminal(JoinPath(root, name)), errno);
    }
    return WalkTree(sub, root, name, depth + 1, bounds, out);
  }
  if (S_ISREG(st.st_mode)) {
    if (out->size() >= bounds.max_entries) {
      return absl::ResourceExhaustedError(absl::StrCat(
          EscapeForTerminal(root), " holds more than ", bounds.max_entries,
          " files; expected a smaller dataset, or a larger "
          "dataset.list_max_objects (CKPT_LIST_MAX_OBJECTS)"));
    }
    out->push_back({name, static_cast<uint64_t>(st.st_size),
                    absl::StrCat(st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec,
                                 "/", st.st_ino)});
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat(EscapeForTerminal(JoinPath(root, name)),
                   " is a link, device, FIFO or socket: a dataset holds "
                   "regular files and directories only"));
}

// The regular files under the directory `fd` (closed here), named
// `prefix` + their path below it, into *out.
absl::Status WalkTree(int fd, const std::string& root,
                      const std::string& prefix, int depth,
                      const ListingBounds& bounds,
                      std::vector<ListedObject>* out) {
  if (bounds.abort != nullptr && bounds.abort->load()) {
    close(fd);
    return ListingAborted(root, out->size());
  }
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    const int err = errno;
    close(fd);
    return PosixError("list", EscapeForTerminal(JoinPath(root, prefix)), err);
  }
  absl::Status status;
  for (;;) {
    errno = 0;
    dirent* e = readdir(d);
    if (e == nullptr) {
      if (errno != 0) {
        status = PosixError("list", EscapeForTerminal(JoinPath(root, prefix)),
                            errno);
      }
      break;
    }
    const std::string n = e->d_name;
    if (IsDotName(n)) continue;
    if (out->size() % 4096 == 4095) {
      status = CheckBounds(bounds, root, out->size());
      if (!status.ok()) break;
    }
    const std::string name = prefix.empty() ? n : absl::StrCat(prefix, "/", n);
    status = CheckRelativeName(name, absl::StrCat("an entry under ", root));
    if (status.ok())
      status = AddEntry(dirfd(d), n, name, root, depth, bounds, out);
    if (!status.ok()) break;
  }
  closedir(d);
  return status;
}

}  // namespace

absl::StatusOr<std::vector<ListedObject>> ListRegularFiles(
    const std::string& dir, const ListingBounds& bounds) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return PosixError("list", dir, errno);
  std::vector<ListedObject> out;
  RETURN_IF_ERROR(WalkTree(fd, dir, "", 0, bounds, &out));
  if (out.empty()) {
    return absl::NotFoundError(
        absl::StrCat(EscapeForTerminal(dir), ": no files under it"));
  }
  return out;
}

}  // namespace ckpt
