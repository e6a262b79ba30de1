#include "node/serving/model_download.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/storage/posix_open.h"

namespace ckpt {
namespace {

// A name a model's listing gave: one path component, so the copy stays in
// the run's directory (the listing keeps only names directly in the
// model's directory; this holds it to that).
bool IsDownloadableName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

// Writes all of `len` bytes at `offset`. A full disk is
// ResourceExhausted; every error names serve.download_path's file.
absl::Status PwriteAll(int fd, const unsigned char* data, size_t len,
                       uint64_t offset, const std::string& path) {
  while (len > 0) {
    const ssize_t n = pwrite(fd, data, len, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;  // 0 bytes: no room left
      const std::string what =
          absl::StrCat("download: writing ", EscapeForTerminal(path),
                       " (serve.download_path, CKPT_SERVE_DOWNLOAD_PATH): ",
                       std::strerror(err));
      return err == ENOSPC || err == EDQUOT ? absl::ResourceExhaustedError(what)
                                            : absl::DataLossError(what);
    }
    data += n;
    len -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

// The descriptors of the files being written, closed when it goes.
struct DownloadFds {
  int dir = -1;  // the copy's directory, opened once, no link followed
  std::vector<int> fds;
  ~DownloadFds() {
    for (int fd : fds) {
      if (fd >= 0) close(fd);
    }
    if (dir >= 0) close(dir);
  }
};

}  // namespace

ModelDownload::ModelDownload(std::string parent, std::string prefix)
    : parent_(std::move(parent)), prefix_(std::move(prefix)) {}

ModelDownload::~ModelDownload() { (void)Remove(); }

absl::Status ModelDownload::Check(uint64_t bytes) const {
  const std::string shown = EscapeForTerminal(parent_);
  struct stat st {};
  if (stat(parent_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    const int err = errno;
    return absl::FailedPreconditionError(absl::StrCat(
        "serve.download_path (CKPT_SERVE_DOWNLOAD_PATH) = ", shown,
        ": expected a local directory the model can be copied into; ",
        st.st_mode == 0 ? std::strerror(err) : "not a directory"));
  }
  if (access(parent_.c_str(), W_OK | X_OK) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("serve.download_path (CKPT_SERVE_DOWNLOAD_PATH) = ", shown,
                     ": expected a directory this process may write in; ",
                     std::strerror(errno)));
  }
  struct statvfs vfs {};
  if (statvfs(parent_.c_str(), &vfs) == 0) {
    const uint64_t free = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (free < bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "serve.download_path (CKPT_SERVE_DOWNLOAD_PATH) = ", shown, " has ",
          FormatBytes(free), " free; the model's files are ",
          FormatBytes(bytes), ". Expected a directory with room for them"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<StreamTally> ModelDownload::Copy(
    Storage& storage, const std::string& from,
    const std::vector<DownloadedFile>& files, const StreamOptions& options,
    const std::atomic<bool>* abort) {
  if (made_) return absl::FailedPreconditionError("download: copied already");
  std::string name = JoinPath(parent_, prefix_ + "XXXXXX");
  if (mkdtemp(name.data()) == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("download: making a directory in serve.download_path "
                     "(CKPT_SERVE_DOWNLOAD_PATH) = ",
                     EscapeForTerminal(parent_), ": ", std::strerror(errno)));
  }
  dir_ = std::move(name);
  made_ = true;
  // The files are made relative to the directory as made: one swapped for
  // a link meanwhile is refused, never followed.
  DownloadFds open;
  open.dir =
      ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (open.dir < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("download: opening ", EscapeForTerminal(dir_),
                     " (made just now): ", std::strerror(errno)));
  }
  std::vector<StreamedFile> streamed;
  for (const DownloadedFile& f : files) {
    if (!IsDownloadableName(f.name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "download: the model's file '", EscapeForTerminal(f.name),
          "' is not a plain file name; nothing copied of it"));
    }
    const std::string path = JoinPath(dir_, f.name);
    ASSIGN_OR_RETURN(int fd, OpenBeneathAt(open.dir, dir_, path,
                                           O_WRONLY | O_CREAT | O_EXCL, 0600));
    open.fds.push_back(fd);
    created_.push_back(f.name);
    streamed.push_back(
        {JoinPath(from, f.name), f.size, {ByteRange{0, f.size}}});
  }
  ChunkSink sink = [&](size_t f, uint64_t off, const unsigned char* data,
                       size_t len) {
    return PwriteAll(open.fds[f], data, len, off,
                     JoinPath(dir_, files[f].name));
  };
  ASSIGN_OR_RETURN(StreamTally tally,
                   StreamRanges(storage, streamed, options, sink, abort));
  for (size_t i = 0; i < open.fds.size(); ++i) {
    const int fd = std::exchange(open.fds[i], -1);
    if (close(fd) != 0) {
      return absl::InternalError(
          absl::StrCat("download: closing ",
                       EscapeForTerminal(JoinPath(dir_, files[i].name)), ": ",
                       std::strerror(errno)));
    }
  }
  open.fds.clear();
  return tally;
}

absl::Status ModelDownload::Remove() {
  if (!made_) return absl::OkStatus();
  RETURN_IF_ERROR(RemoveBeneath(dir_, created_, parent_));
  made_ = false;
  created_.clear();
  return absl::OkStatus();
}

}  // namespace ckpt
