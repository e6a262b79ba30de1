// Storage on a local filesystem path: boot disks, and FUSE mounts (a
// flavour with FUSE's restrictions comes later). fsync for durability,
// optional O_DIRECT, page-cache avoidance for loads. Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_POSIX_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_POSIX_STORAGE_H_

#include <memory>

#include "node/storage/storage.h"

namespace ckpt {

class PosixStorage : public Storage {
 public:
  static std::unique_ptr<Storage> Make();

  std::string Kind() const override { return "posix"; }
  absl::StatusOr<std::unique_ptr<WritableFile>> OpenWrite(
      const std::string& path, const WriteOptions& options) override;
  absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& options) override;
  absl::Status CreateDirs(const std::string& path) override;
  absl::Status SyncDir(const std::string& path) override;
  absl::StatusOr<std::vector<std::string>> ListDir(
      const std::string& path) override;
  absl::StatusOr<bool> Exists(const std::string& path) override;
  absl::Status RemoveTree(const std::string& path) override;
  absl::Status RemoveFiles(const std::string& dir,
                           const std::vector<std::string>& names) override;
  absl::Status WriteAtomic(const std::string& path,
                           const std::string& data) override;
  absl::StatusOr<std::string> ReadSmall(const std::string& path) override;
  absl::StatusOr<CacheReport> PrepareColdRead(
      const std::vector<std::string>& paths, const std::string& mode) override;
  FilesystemInfo Filesystem(const std::string& path) override;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_POSIX_STORAGE_H_
