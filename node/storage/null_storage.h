// Storage that discards every write and holds nothing ("null://..."): for
// measuring ckptbench's own overhead (coordination, generation) without
// storage. "null://mibps-N/..." is this storage paced to N MiB/s
// (paced_storage.h: one pacer for all the round's files), a storage slowed
// on purpose for tests of what a slow save costs (async checkpointing).
// Loads are refused. Thread-safe (no mutable state).
#ifndef CKPTBENCH_NODE_STORAGE_NULL_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_NULL_STORAGE_H_

#include <memory>

#include "node/storage/storage.h"

namespace ckpt {

class NullStorage : public Storage {
 public:
  static std::unique_ptr<Storage> Make();
  // The pace a null:// URI asks for (bytes/s; 0: none); an error names a
  // malformed null://mibps-N.
  static absl::StatusOr<double> RateOf(const std::string& uri);

  StorageKind Kind() const override { return StorageKind::kNull; }
  absl::StatusOr<std::unique_ptr<WritableFile>> OpenWrite(
      const std::string& path, const WriteOptions& options) override;
  absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& options) override;
  absl::Status CreateDirs(const std::string&) override {
    return absl::OkStatus();
  }
  absl::Status SyncDir(const std::string&) override { return absl::OkStatus(); }
  absl::StatusOr<std::vector<std::string>> ListDir(
      const std::string& path) override;
  absl::StatusOr<bool> Exists(const std::string&) override { return false; }
  absl::Status RemoveTree(const std::string&) override {
    return absl::OkStatus();
  }
  absl::Status RemoveFiles(const std::string&,
                           const std::vector<std::string>&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> ClaimDir(const std::string&,
                                       const std::string&) override {
    return std::string(kClaimName);
  }
  absl::Status WriteAtomic(const std::string&, const std::string&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> ReadSmall(const std::string& path) override;
  absl::StatusOr<CacheReport> PrepareColdRead(
      const std::vector<std::string>& paths, CacheMode mode,
      DirectFallback direct) override;
  FilesystemInfo Filesystem(const std::string&) override {
    return {"null", "", ""};
  }
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_NULL_STORAGE_H_
