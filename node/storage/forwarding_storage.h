// A Storage that passes every call to another: the base of the decorators
// that add to a backend without being one (paced_storage.h,
// timed_storage.h). A decorator
// overrides what it changes and inherits the rest. Thread-safe as the
// storage it wraps.
#ifndef CKPTBENCH_NODE_STORAGE_FORWARDING_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_FORWARDING_STORAGE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "node/storage/storage.h"

namespace ckpt {

class ForwardingStorage : public Storage {
 public:
  explicit ForwardingStorage(std::shared_ptr<Storage> inner)
      : owned_(std::move(inner)), inner_(owned_.get()) {}
  // Not owning: `inner` outlives this (a view for one task).
  explicit ForwardingStorage(Storage& inner) : inner_(&inner) {}

  StorageKind Kind() const override { return inner_->Kind(); }
  absl::StatusOr<std::unique_ptr<WritableFile>> OpenWrite(
      const std::string& path, const WriteOptions& options) override {
    return inner_->OpenWrite(path, options);
  }
  absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& options) override {
    return inner_->OpenRead(path, options);
  }
  absl::Status CreateDirs(const std::string& path) override {
    return inner_->CreateDirs(path);
  }
  absl::Status SyncDir(const std::string& path) override {
    return inner_->SyncDir(path);
  }
  absl::StatusOr<std::vector<std::string>> ListDir(
      const std::string& path) override {
    return inner_->ListDir(path);
  }
  absl::StatusOr<bool> Exists(const std::string& path) override {
    return inner_->Exists(path);
  }
  absl::StatusOr<std::vector<ListedObject>> ListTree(
      const std::string& dir, const ListingBounds& bounds) override {
    return inner_->ListTree(dir, bounds);
  }
  absl::Status RemoveTree(const std::string& path) override {
    return inner_->RemoveTree(path);
  }
  absl::Status RemoveFiles(const std::string& dir,
                           const std::vector<std::string>& names) override {
    return inner_->RemoveFiles(dir, names);
  }
  absl::StatusOr<std::string> ClaimDir(const std::string& dir,
                                       const std::string& owner) override {
    return inner_->ClaimDir(dir, owner);
  }
  absl::StatusOr<int> AbortUploads(
      const std::string& dir, const std::vector<std::string>& names) override {
    return inner_->AbortUploads(dir, names);
  }
  absl::Status WriteAtomic(const std::string& path,
                           const std::string& data) override {
    return inner_->WriteAtomic(path, data);
  }
  absl::StatusOr<std::string> ReadSmall(const std::string& path) override {
    return inner_->ReadSmall(path);
  }
  absl::StatusOr<CacheReport> PrepareColdRead(
      const std::vector<std::string>& paths, CacheMode mode,
      DirectFallback direct) override {
    return inner_->PrepareColdRead(paths, mode, direct);
  }
  FilesystemInfo Filesystem(const std::string& path) override {
    return inner_->Filesystem(path);
  }
  std::optional<uint64_t> FreeBytes(const std::string& path) override {
    return inner_->FreeBytes(path);
  }
  BufferUse BufferPerFile(bool save) const override {
    return inner_->BufferPerFile(save);
  }
  size_t TrimBuffers() override { return inner_->TrimBuffers(); }

 protected:
  Storage& inner() { return *inner_; }

 private:
  std::shared_ptr<Storage> owned_;  // null for a view
  Storage* inner_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_FORWARDING_STORAGE_H_
