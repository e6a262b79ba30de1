// In-memory Storage for tests: files live in a process-wide store keyed by
// path ("mem://name/..."), so a test can inspect or corrupt what a node
// wrote. Thread-safe (one mutex).
#ifndef CKPTBENCH_NODE_STORAGE_MEMORY_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_MEMORY_STORAGE_H_

#include <memory>

#include "node/storage/storage.h"

namespace ckpt {

class MemoryStorage : public Storage {
 public:
  static std::unique_ptr<Storage> Make();

  // Test hooks on the process-wide store.
  static void Clear();
  static bool FlipByte(const std::string& path, uint64_t offset);
  static std::vector<std::string> AllPaths();
  // Every file and directory under `from` (a path prefix) moved, or
  // copied, to `to` (one disk's files put on another node's, as a test
  // permutes them).
  static void MovePrefix(const std::string& from, const std::string& to,
                         bool keep = false);
  // The directories SyncDir was called on since Clear(), in order.
  static std::vector<std::string> SyncedDirs();

  std::string Kind() const override { return "memory"; }
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
  absl::StatusOr<std::string> ClaimDir(const std::string& dir,
                                       const std::string& owner) override;
  absl::Status WriteAtomic(const std::string& path,
                           const std::string& data) override;
  absl::StatusOr<std::string> ReadSmall(const std::string& path) override;
  absl::StatusOr<CacheReport> PrepareColdRead(
      const std::vector<std::string>& paths, const std::string& mode) override;
  FilesystemInfo Filesystem(const std::string& path) override;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_MEMORY_STORAGE_H_
