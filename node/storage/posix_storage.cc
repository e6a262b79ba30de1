#include "node/storage/posix_storage.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/files.h"
#include "common/names.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "node/storage/page_cache.h"
#include "node/storage/posix_cold_read.h"
#include "node/storage/posix_open.h"
#include "node/storage/posix_tree.h"

namespace ckpt {
namespace {

absl::Status Errno(const std::string& what, const std::string& path,
                   int err = errno) {
  return PosixError(what, path, err);
}

// Owns an open descriptor: closes it once, reporting close() errors.
class OwnedFd {
 public:
  OwnedFd(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~OwnedFd() {
    if (fd_ >= 0) close(fd_);
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;

  absl::Status CloseFd() {
    int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && close(fd) != 0) return Errno("close", path_);
    return absl::OkStatus();
  }

 protected:
  std::string path_;
  int fd_;
};

class PosixWritableFile : public WritableFile, private OwnedFd {
 public:
  PosixWritableFile(std::string path, int fd, bool direct, bool fuse)
      : OwnedFd(std::move(path), fd), direct_(direct), fuse_(fuse) {}

  absl::Status Append(const void* data, size_t len) override {
    if (direct_ && len % 4096 != 0) {
      // The unaligned tail of a file: finish without O_DIRECT.
      int flags = fcntl(fd_, F_GETFL);
      if (flags < 0 || fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) {
        return Errno("fcntl(clear O_DIRECT)", path_);
      }
      direct_ = false;
    }
    const char* p = static_cast<const char*>(data);
    while (len > 0) {
      ssize_t n = write(fd_, p, len);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Errno("write", path_);
      }
      p += n;
      len -= static_cast<size_t>(n);
    }
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    if (fsync(fd_) != 0) {
      // FUSE mounts where fsync is not meaningful: close is what counts.
      if (fuse_ && (errno == ENOSYS || errno == EINVAL || errno == ENOTSUP))
        return absl::OkStatus();
      return Errno("fsync", path_);
    }
    return absl::OkStatus();
  }

  absl::Status Close() override { return CloseFd(); }

 private:
  bool direct_;
  const bool fuse_;
};

class PosixReadableFile : public ReadableFile, private OwnedFd {
 public:
  PosixReadableFile(std::string path, int fd, uint64_t size)
      : OwnedFd(std::move(path), fd), size_(size) {}

  uint64_t Size() const override { return size_; }

  absl::StatusOr<size_t> Read(uint64_t offset, void* buf, size_t len) override {
    size_t done = 0;
    char* p = static_cast<char*>(buf);
    while (done < len) {
      ssize_t n =
          pread(fd_, p + done, len - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Errno("read", path_);
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
      // Direct reads of the final partial block return short; stop there.
      if ((offset + done) >= size_) break;
    }
    return done;
  }

  ~PosixReadableFile() override { Unmap(); }

  absl::Status Close() override {
    Unmap();
    return CloseFd();
  }
  bool ConcurrentReads() const override { return true; }  // pread
  // mincore over a mapping of the whole file, made at the first call and
  // kept until Close: a mapping per call would cost an munmap, and its
  // TLB shootdown across the reading threads, per chunk. Not to be called
  // concurrently with Close. nullopt where mincore cannot tell (a file
  // this process neither owns nor may write: every page then reads as
  // resident) or the file cannot be mapped.
  std::optional<uint64_t> CachedBytes(uint64_t offset,
                                      uint64_t length) override {
    if (offset >= size_) return 0;
    std::call_once(mapped_, [this] {
      if (!MincoreTells(fd_)) return;
      void* m = mmap(nullptr, static_cast<size_t>(size_), PROT_READ, MAP_SHARED,
                     fd_, 0);
      map_ = m == MAP_FAILED ? nullptr : static_cast<unsigned char*>(m);
    });
    if (map_ == nullptr) return std::nullopt;
    absl::StatusOr<uint64_t> r =
        ResidentInMapping(map_ + offset, std::min(length, size_ - offset));
    return r.ok() ? std::optional<uint64_t>(*r) : std::nullopt;
  }

 private:
  void Unmap() {
    if (map_ != nullptr) munmap(map_, static_cast<size_t>(size_));
    map_ = nullptr;
  }

  uint64_t size_;
  std::once_flag mapped_;
  unsigned char* map_ = nullptr;  // CachedBytes's, after mapped_
};

}  // namespace

absl::StatusOr<std::unique_ptr<Storage>> PosixStorage::Make(
    StorageFlavour flavour, const std::string& where,
    std::shared_ptr<EvictionProbes> probes, const std::string& root) {
  Flavour f = Flavour::kLocal;
  if (flavour == StorageFlavour::kFuse) {
    f = Flavour::kFuse;
  } else if (flavour == StorageFlavour::kAuto) {
    if (MountOf(where).type.rfind("fuse", 0) == 0) f = Flavour::kFuse;
  }
  return std::make_unique<PosixStorage>(f, std::move(probes), root);
}

PosixStorage::PosixStorage(Flavour flavour,
                           std::shared_ptr<EvictionProbes> probes,
                           std::string root)
    : flavour_(flavour),
      root_(std::move(root)),
      probes_(probes ? std::move(probes) : std::make_shared<EvictionProbes>()) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

PosixStorage::~PosixStorage() {
  const int fd = root_fd_.load();
  if (fd >= 0) close(fd);
}

int PosixStorage::RootFd() {
  int fd = root_fd_.load(std::memory_order_acquire);
  if (fd >= 0) return fd;
  std::lock_guard<std::mutex> lock(root_mu_);
  fd = root_fd_.load(std::memory_order_relaxed);
  if (fd < 0) {
    fd = open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    root_fd_.store(fd, std::memory_order_release);
  }
  return fd;
}

bool PosixStorage::InRoot(const std::string& path) const {
  if (root_.empty()) return false;
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p == root_ || !RelativeTo(p, root_).empty();
}

std::string PosixStorage::WriteRoot(const std::string& path) const {
  if (!root_.empty() && !RelativeTo(path, root_).empty()) return root_;
  return RootOf(path);
}

absl::StatusOr<std::unique_ptr<WritableFile>> PosixStorage::OpenWrite(
    const std::string& path, const WriteOptions& options) {
  const bool fuse = flavour_ == Flavour::kFuse;
  const std::string root = WriteRoot(path);
  // Always a new file: never truncated or overwritten in place (a FUSE
  // mount's objects allow nothing else; on a local disk another name of
  // the same inode, a planted hard link, would be rewritten too).
  int flags = O_WRONLY | O_CREAT | O_EXCL;
  if (options.direct && !fuse) flags |= O_DIRECT;
  const std::string unlink_root = root == RootOf(path) ? "" : root;
  if (fuse) RETURN_IF_ERROR(UnlinkFileBeneath(path, unlink_root));
  // Beneath the location (or the checkpoints directory) and through no
  // symbolic link there: a link planted where a file goes, or a directory
  // swapped for one, is refused instead of written through.
  auto fd = OpenBeneath(path, flags, root, 0644);
  if (!fuse && absl::IsAlreadyExists(fd.status())) {
    RETURN_IF_ERROR(UnlinkFileBeneath(path, unlink_root));
    fd = OpenBeneath(path, flags, root, 0644);
  }
  if (!fd.ok()) {
    if (options.direct && absl::IsInvalidArgument(fd.status())) {
      return absl::InvalidArgumentError(
          absl::StrCat("open ", path,
                       " with O_DIRECT: the filesystem does not support "
                       "direct I/O; set io.direct_write=false"));
    }
    return fd.status();
  }
  return std::unique_ptr<WritableFile>(
      new PosixWritableFile(path, *fd, options.direct && !fuse, fuse));
}

absl::StatusOr<std::unique_ptr<ReadableFile>> PosixStorage::OpenRead(
    const std::string& path, const ReadOptions& options) {
  const bool direct = options.direct && flavour_ != Flavour::kFuse;
  // Not blocking on a FIFO, refusing special files, links only beneath
  // (the location trusted as given, when the path lies under it).
  const std::string beneath = !options.beneath.empty() || root_.empty() ||
                                      RelativeTo(path, root_).empty()
                                  ? options.beneath
                                  : root_;
  const int flags = O_RDONLY | (direct ? O_DIRECT : 0);
  const int root_fd = !root_.empty() && beneath == root_ ? RootFd() : -1;
  uint64_t size = 0;
  ASSIGN_OR_RETURN(int fd,
                   root_fd >= 0
                       ? OpenBeneathAt(root_fd, root_, path, flags, 0, &size)
                       : OpenBeneath(path, flags, beneath, 0, &size));
  if (options.no_readahead) (void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
  return std::unique_ptr<ReadableFile>(new PosixReadableFile(path, fd, size));
}

absl::Status PosixStorage::CreateDirs(const std::string& path) {
  // The location itself (and what is above it) as the user gave it; below
  // it, one directory at a time through no link.
  const bool below = InRoot(path);
  const std::string top = below ? root_ : path;
  std::error_code ec;
  std::filesystem::create_directories(top, ec);
  absl::Status s =
      ec ? Errno("create directory", top, ec.value()) : absl::OkStatus();
  if (s.ok() && below) s = MakeDirsBeneath(path, root_);
  if (s.ok() || !absl::IsPermissionDenied(s)) return s;
  // Who may not write where: the usual cause in a container (the image
  // runs as uid 10001; a mounted host directory belongs to root).
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  while (!parent.empty() && !std::filesystem::exists(parent, ec))
    parent = parent.parent_path();
  struct stat st;
  if (parent.empty() || stat(parent.c_str(), &st) != 0) return s;
  return absl::PermissionDeniedError(
      absl::StrCat(s.message(), " (this process runs as uid ", geteuid(), "; ",
                   parent.string(), " belongs to uid ", st.st_uid,
                   " with mode ", absl::StrFormat("%04o", st.st_mode & 07777),
                   ": give that uid write access to it, e.g. chown)"));
}

absl::Status PosixStorage::SyncDir(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open directory", path);
  int rc = fsync(fd);
  int err = errno;
  close(fd);
  if (rc != 0 && err != EINVAL && err != ENOSYS && err != ENOTSUP)
    return Errno("fsync directory", path, err);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> PosixStorage::ListDir(
    const std::string& path) {
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return Errno("list", path);
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (!IsDotName(n)) names.push_back(n);
  }
  closedir(d);
  return names;
}

absl::StatusOr<std::vector<ListedObject>> PosixStorage::ListTree(
    const std::string& dir, const ListingBounds& bounds) {
  return ListRegularFiles(dir, bounds);
}

absl::StatusOr<bool> PosixStorage::Exists(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return Errno("stat", path);
}

absl::Status PosixStorage::RemoveTree(const std::string& path) {
  // Below the location, through no link (a directory on the way swapped
  // for one is refused); elsewhere as std::filesystem does (no link inside
  // the tree is followed either way).
  if (InRoot(path) && RelativeTo(path, root_) != "") {
    return RemoveAllBeneath(path, root_);
  }
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) return Errno("remove", path, ec.value());
  return absl::OkStatus();
}

absl::Status PosixStorage::RemoveFiles(const std::string& dir,
                                       const std::vector<std::string>& names) {
  // Relative to the directory opened without following a link: a step
  // swapped for a link to elsewhere is refused, never emptied. The
  // directory stays when something this run did not write is still there.
  // Below the location, no directory on the way is a link either.
  return RemoveBeneath(dir, names, InRoot(dir) ? root_ : "");
}

absl::StatusOr<std::string> PosixStorage::ClaimDir(const std::string& dir,
                                                   const std::string& owner) {
  const std::string parent = std::filesystem::path(dir).parent_path().string();
  if (!parent.empty()) RETURN_IF_ERROR(CreateDirs(parent));
  // mkdir is the atomic claim: of two runs, one gets EEXIST. (On an
  // object-store FUSE mount the daemon decides; s3fs checks, then creates.)
  // Made relative to its parent, opened through no link below the location.
  const std::string where = parent.empty() ? "." : parent;
  int pfd = -1;
  if (InRoot(where)) {
    ASSIGN_OR_RETURN(pfd, OpenDirBeneath(where, root_));
  } else {
    pfd = open(where.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0) return Errno("open directory", where);
  }
  const std::string base = std::filesystem::path(dir).filename().string();
  const int rc = mkdirat(pfd, base.c_str(), 0777);
  const int err = errno;
  close(pfd);
  if (rc != 0) {
    if (err == EEXIST) {
      return absl::AlreadyExistsError(absl::StrCat(
          dir, " exists (another run's step, or one an earlier run left)"));
    }
    return Errno("create directory", dir, err);
  }
  absl::Status written = WriteAtomic(JoinPath(dir, kClaimName), owner);
  if (!written.ok()) {
    // Not a claim after all (e.g. no inode left): leave nothing behind.
    (void)RemoveBeneath(dir, {kClaimName}, InRoot(dir) ? root_ : "");
    return written;
  }
  return std::string(kClaimName);
}

absl::Status PosixStorage::WriteAtomic(const std::string& path,
                                       const std::string& data) {
  if (flavour_ == Flavour::kFuse) {
    // No rename on object-store mounts: the object appears whole at close.
    ASSIGN_OR_RETURN(auto f, OpenWrite(path, WriteOptions{}));
    RETURN_IF_ERROR(f->Append(data.data(), data.size()));
    RETURN_IF_ERROR(f->Sync());
    return f->Close();
  }
  // Written in the step directory opened once, without following a link
  // (WriteFileAtomicallyAt: a temporary of its own, renamed there).
  const std::filesystem::path p(path);
  const std::string dir =
      p.parent_path().empty() ? "." : p.parent_path().string();
  ASSIGN_OR_RETURN(int dfd, OpenDirBeneath(dir, InRoot(dir) ? root_ : ""));
  absl::Status written =
      WriteFileAtomicallyAt(dfd, dir, p.filename().string(), data);
  close(dfd);
  return written;
}

absl::StatusOr<std::string> PosixStorage::ReadSmall(const std::string& path) {
  ASSIGN_OR_RETURN(auto f, OpenRead(path, ReadOptions{}));
  std::string data(f->Size(), '\0');
  ASSIGN_OR_RETURN(size_t n, f->Read(0, data.data(), data.size()));
  data.resize(n);
  return data;
}

absl::StatusOr<CacheReport> PosixStorage::PrepareColdRead(
    const std::vector<std::string>& paths, CacheMode mode,
    DirectFallback direct) {
  return PrepareColdReadOnPosix(paths, mode, direct, flavour_ == Flavour::kFuse,
                                *probes_);
}

std::optional<uint64_t> PosixStorage::FreeBytes(const std::string& path) {
  if (flavour_ == Flavour::kFuse) return std::nullopt;
  std::filesystem::path p(path);
  std::error_code ec;
  while (!p.empty() && !std::filesystem::exists(p, ec)) p = p.parent_path();
  struct statvfs vfs;
  if (statvfs(p.empty() ? "." : p.c_str(), &vfs) != 0) return std::nullopt;
  return static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
}

FilesystemInfo PosixStorage::Filesystem(const std::string& path) {
  FilesystemInfo info = MountOf(path);
  if (flavour_ == Flavour::kFuse)
    info.options = absl::StrCat("flavour=fuse,", info.options);
  return info;
}

}  // namespace ckpt
