// In-memory Storage for tests: files live in a MemoryStore keyed by path
// ("mem://name/..."), which the in-process nodes of a test share as their
// bucket, so a test can inspect or corrupt what a node wrote. Thread-safe
// (one mutex).
#ifndef CKPTBENCH_NODE_STORAGE_MEMORY_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_MEMORY_STORAGE_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "node/storage/storage.h"

namespace ckpt {

class Pacer;  // paced_storage.h

// The files and directories of mem:// locations: made by a test and handed
// to the StorageSets of the in-process nodes that share it; a StorageSet
// given none makes its own (`ckptbench run`, a node process). The hooks
// let a test inspect or corrupt what a node wrote.
class MemoryStore {
 public:
  void Clear();
  bool FlipByte(const std::string& path, uint64_t offset);
  std::vector<std::string> AllPaths() const;
  // Every file and directory under `from` (a path prefix) moved, or
  // copied, to `to` (one disk's files put on another node's, as a test
  // permutes them).
  void MovePrefix(const std::string& from, const std::string& to,
                  bool keep = false);
  // The directories SyncDir was called on since Clear(), in order.
  std::vector<std::string> SyncedDirs() const;
  // A whole file, replacing any (a write's Sync or Close).
  void Put(const std::string& path, const std::string& data);
  // From now on, every backend made over this store (StorageSet::Open of a
  // mem:// location) reads and writes at `bytes_per_second` in all, as one
  // device (PacedStorage with one Pacer); 0: unpaced. For tests that need
  // storage of a known rate.
  void SetRate(double bytes_per_second);
  std::shared_ptr<Pacer> pacer() const;
  // From now on, every backend made over this store is `wrap`ped (a test's
  // fault decorator: a full disk, a failing call); null: none.
  using Wrapper =
      std::function<std::shared_ptr<Storage>(std::shared_ptr<Storage>)>;
  void SetWrapper(Wrapper wrap);
  Wrapper wrapper() const;

 private:
  friend class MemoryStorage;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<std::string>> files_;
  std::set<std::string> dirs_;
  std::vector<std::string> synced_dirs_;  // SyncDir calls, in order
  std::shared_ptr<Pacer> pacer_;          // SetRate
  Wrapper wrapper_;                       // SetWrapper
};

class MemoryStorage : public Storage {
 public:
  static std::unique_ptr<Storage> Make(std::shared_ptr<MemoryStore> store);
  explicit MemoryStorage(std::shared_ptr<MemoryStore> store)
      : store_(std::move(store)) {}

  StorageKind Kind() const override { return StorageKind::kMemory; }
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

 private:
  std::shared_ptr<MemoryStore> store_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_MEMORY_STORAGE_H_
