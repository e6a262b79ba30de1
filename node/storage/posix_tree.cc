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

// The regular files under the directory `fd` (closed here), named
// `prefix` + their path below it, into *out.
absl::Status WalkTree(int fd, const std::string& root,
                      const std::string& prefix, int depth,
                      const ListingBounds& bounds,
                      std::vector<ListedObject>* out) {
  if (bounds.abort != nullptr && bounds.abort->load()) {
    close(fd);
    return absl::AbortedError(absl::StrCat("listing ", EscapeForTerminal(root),
                                           ": stopped after ", out->size(),
                                           " files: the run was aborted"));
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
    // A directory of millions of entries: the abort flag and the memory
    // bound looked at every few thousand, not only per directory.
    if (out->size() % 4096 == 4095) {
      if (bounds.abort != nullptr && bounds.abort->load()) {
        status = absl::AbortedError(absl::StrCat(
            "listing ", EscapeForTerminal(root), ": stopped after ",
            out->size(), " files: the run was aborted"));
        break;
      }
      const uint64_t held = out->size() * (kListedEntryBytes + 64);
      if (bounds.memory_bytes != 0 && held > bounds.memory_bytes) {
        status = absl::ResourceExhaustedError(absl::StrCat(
            "listing ", EscapeForTerminal(root), ": its ", out->size(),
            " files would hold about ", held, " bytes, more than the ",
            bounds.memory_bytes,
            " (80% of the memory available) this node may use for it"));
        break;
      }
    }
    const std::string name = prefix.empty() ? n : absl::StrCat(prefix, "/", n);
    status = CheckRelativeName(name, absl::StrCat("an entry under ", root));
    if (!status.ok()) break;
    struct stat st;
    if (fstatat(dirfd(d), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      status =
          PosixError("stat", EscapeForTerminal(JoinPath(root, name)), errno);
      break;
    }
    if (S_ISDIR(st.st_mode)) {
      if (depth >= kMaxListDepth) {
        status = absl::FailedPreconditionError(
            absl::StrCat(EscapeForTerminal(JoinPath(root, name)),
                         ": more than ", kMaxListDepth, " directories deep"));
        break;
      }
      const int sub = openat(dirfd(d), n.c_str(),
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) {
        status = PosixError("open directory",
                            EscapeForTerminal(JoinPath(root, name)), errno);
        break;
      }
      status = WalkTree(sub, root, name, depth + 1, bounds, out);
      if (!status.ok()) break;
    } else if (S_ISREG(st.st_mode)) {
      if (out->size() >= bounds.max_entries) {
        status = absl::ResourceExhaustedError(absl::StrCat(
            EscapeForTerminal(root), " holds more than ", bounds.max_entries,
            " files; expected a smaller dataset, or a larger "
            "dataset.list_max_objects (CKPT_LIST_MAX_OBJECTS)"));
        break;
      }
      out->push_back({name, static_cast<uint64_t>(st.st_size),
                      absl::StrCat(st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec,
                                   "/", st.st_ino)});
    } else {
      status = absl::FailedPreconditionError(absl::StrCat(
          EscapeForTerminal(JoinPath(root, name)),
          " is a link, device, FIFO or socket: a dataset holds regular "
          "files and directories only"));
      break;
    }
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
