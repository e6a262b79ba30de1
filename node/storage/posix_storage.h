// Storage on a filesystem path, in two flavours. local (boot disks): fsync
// for durability, optional O_DIRECT, small files written to a temporary
// name and renamed. fuse (object-store mounts: s3fs, mountpoint-s3,
// gcsfuse): what those allow only: sequential single-pass writes to new
// files (an existing one is unlinked first, never truncated or
// overwritten in place), no O_DIRECT, no rename; close() is the
// durability point (the upload) and is checked, fsync is done when asked
// but ENOSYS/EINVAL/ENOTSUP from it or from a directory fsync is not an
// error. Both evict the page cache before loads. Thread-safe.
//
// Every file is written as a new inode (O_EXCL; an existing regular file
// is unlinked first, a link or anything else refused), so a hard link
// planted where a file goes keeps its other name's bytes. A location
// trusted as given (`root`: a dataset.path, a results directory; see
// LocationRoot in storage_factory.h) is resolved as given, links included:
// it is the user's choice. Below it, every write, directory creation and
// removal follows no symbolic link (openat2 RESOLVE_NO_SYMLINKS, mkdirat
// and unlinkat one component at a time), and reads resolve beneath it.
// Without one (a step's files), paths keep the default root of
// posix_open.h: the checkpoints directory above the step.
#ifndef CKPTBENCH_NODE_STORAGE_POSIX_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_POSIX_STORAGE_H_

#include <atomic>
#include <memory>
#include <mutex>

#include "node/storage/page_cache.h"
#include "node/storage/storage.h"

namespace ckpt {

class PosixStorage : public Storage {
 public:
  enum class Flavour { kLocal, kFuse };
  // Flavour auto: fuse when `where`'s mount type is fuse.* (or fuseblk).
  // Cold-read probes are kept in `probes` (the StorageSet's), or in a set of
  // the backend's own when null. `root`: a location trusted as given (see
  // above), "" for none.
  static absl::StatusOr<std::unique_ptr<Storage>> Make(
      StorageFlavour flavour = StorageFlavour::kLocal,
      const std::string& where = "",
      std::shared_ptr<EvictionProbes> probes = nullptr,
      const std::string& root = "");
  explicit PosixStorage(Flavour flavour = Flavour::kLocal,
                        std::shared_ptr<EvictionProbes> probes = nullptr,
                        std::string root = "");
  ~PosixStorage() override;
  PosixStorage(const PosixStorage&) = delete;
  PosixStorage& operator=(const PosixStorage&) = delete;
  Flavour flavour() const { return flavour_; }

  StorageKind Kind() const override {
    return flavour_ == Flavour::kFuse ? StorageKind::kFuse
                                      : StorageKind::kPosix;
  }
  absl::StatusOr<std::unique_ptr<WritableFile>> OpenWrite(
      const std::string& path, const WriteOptions& options) override;
  absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& options) override;
  absl::Status CreateDirs(const std::string& path) override;
  absl::Status SyncDir(const std::string& path) override;
  absl::StatusOr<std::vector<std::string>> ListDir(
      const std::string& path) override;
  absl::StatusOr<bool> Exists(const std::string& path) override;
  absl::StatusOr<std::vector<ListedObject>> ListTree(
      const std::string& dir, const ListingBounds& bounds) override;
  absl::Status RemoveTree(const std::string& path) override;
  absl::Status RemoveFiles(const std::string& dir,
                           const std::vector<std::string>& names) override;
  absl::StatusOr<std::string> ClaimDir(const std::string& dir,
                                       const std::string& owner) override;
  absl::Status WriteAtomic(const std::string& path,
                           const std::string& data) override;
  absl::StatusOr<std::string> ReadSmall(const std::string& path) override;
  absl::StatusOr<CacheReport> PrepareColdRead(
      const std::vector<std::string>& paths, CacheMode mode,
      DirectFallback direct) override;
  FilesystemInfo Filesystem(const std::string& path) override;
  // statvfs's f_bavail blocks (local flavour only: a FUSE mount's figures
  // are made up).
  std::optional<uint64_t> FreeBytes(const std::string& path) override;

 private:
  // The directory writes of `path` stay beneath, following no link below
  // it: the location's root when `path` lies under it, else RootOf(path).
  std::string WriteRoot(const std::string& path) const;
  // Whether `path` is the location's root or lies beneath it.
  bool InRoot(const std::string& path) const;

  // The root, opened once for the reads beneath it (a dataset's samples:
  // one open of the root per sample was two system calls of nine); -1
  // while it cannot be opened (each read then opens it and says why).
  int RootFd();

  Flavour flavour_;
  std::string root_;  // "" = none
  std::shared_ptr<EvictionProbes> probes_;
  std::mutex root_mu_;            // held only while the root is opened
  std::atomic<int> root_fd_{-1};  // read without it on every open
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_POSIX_STORAGE_H_
