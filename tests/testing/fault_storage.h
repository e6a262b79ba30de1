// Fault injection as a decorator over Storage, for tests: chosen calls of
// the storage underneath fail with a chosen status, or are slowed, by rule.
// What an HTTP fault proxy (fault_proxy.h) does for the object stores'
// wire, this does below the Storage interface for any backend, so a node's
// or a file loop's handling of a failed open, write, fsync, close, read or
// metadata write can be tried on memory or posix storage, deterministically.
// Thread-safe; the rules are set before the calls they apply to.
#ifndef CKPTBENCH_TESTS_TESTING_FAULT_STORAGE_H_
#define CKPTBENCH_TESTS_TESTING_FAULT_STORAGE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "node/storage/forwarding_storage.h"

namespace ckpt {

// The calls a rule can match (a written file's Close is kCloseWrite, a read
// one's kCloseRead).
enum class StorageOp {
  kOpenWrite,
  kAppend,
  kSync,
  kCloseWrite,
  kOpenRead,
  kRead,
  kCloseRead,
  kSyncDir,
  kListDir,
  kWriteAtomic,
  kReadSmall,
  kRemoveFiles,
  kClaimDir,
};

struct StorageFault {
  StorageOp op = StorageOp::kAppend;
  // Matches calls whose path (a file's: the path it was opened with)
  // contains this; "" matches every path.
  std::string path_contains;
  // Matching calls let through before the rule acts, then how many it
  // acts on (-1: every one after).
  int64_t skip = 0;
  int64_t times = 1;
  // What the call returns instead of running (ok: it runs, only delayed).
  absl::Status status = absl::UnavailableError("injected fault");
  // Slept before the call, failed or not.
  std::chrono::milliseconds delay{0};
};

class FaultStorage : public ForwardingStorage {
 public:
  explicit FaultStorage(std::shared_ptr<Storage> inner)
      : ForwardingStorage(std::move(inner)) {}
  explicit FaultStorage(Storage& inner) : ForwardingStorage(inner) {}

  void Add(StorageFault fault);
  // Calls a rule failed (its status not ok) so far.
  int injected() const { return injected_.load(); }
  // Calls of `op` seen so far (matched by a rule or not).
  int64_t calls(StorageOp op) const;

  // The decision for one call: ok to run it (after any delay), or the
  // status it returns. Used by the files this storage opens.
  absl::Status Check(StorageOp op, const std::string& path);

  absl::StatusOr<std::unique_ptr<WritableFile>> OpenWrite(
      const std::string& path, const WriteOptions& options) override;
  absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& options) override;
  absl::Status SyncDir(const std::string& path) override;
  absl::StatusOr<std::vector<std::string>> ListDir(
      const std::string& path) override;
  absl::Status WriteAtomic(const std::string& path,
                           const std::string& data) override;
  absl::StatusOr<std::string> ReadSmall(const std::string& path) override;
  absl::Status RemoveFiles(const std::string& dir,
                           const std::vector<std::string>& names) override;
  absl::StatusOr<std::string> ClaimDir(const std::string& dir,
                                       const std::string& owner) override;
  // What FreeBytes answers from now on (a disk of this much free space);
  // nullopt: the storage underneath's answer.
  void SetFreeBytes(std::optional<uint64_t> bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    free_bytes_ = bytes;
  }
  std::optional<uint64_t> FreeBytes(const std::string& path) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (free_bytes_) return free_bytes_;
    }
    return ForwardingStorage::FreeBytes(path);
  }

 private:
  struct Rule {
    StorageFault fault;
    int64_t matched = 0;
  };
  static constexpr int kOps = static_cast<int>(StorageOp::kClaimDir) + 1;
  mutable std::mutex mu_;
  std::vector<Rule> rules_;             // guarded by mu_
  int64_t calls_[kOps] = {};            // guarded by mu_
  std::optional<uint64_t> free_bytes_;  // guarded by mu_
  std::atomic<int> injected_{0};
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_FAULT_STORAGE_H_
