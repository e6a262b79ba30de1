#include "tests/testing/fault_storage.h"

#include <thread>
#include <utility>

#include "common/status_macros.h"

namespace ckpt {
namespace {

class FaultWritableFile : public WritableFile {
 public:
  FaultWritableFile(std::unique_ptr<WritableFile> inner, FaultStorage* faults,
                    std::string path)
      : inner_(std::move(inner)), faults_(faults), path_(std::move(path)) {}
  absl::Status Append(const void* data, size_t len) override {
    RETURN_IF_ERROR(faults_->Check(StorageOp::kAppend, path_));
    return inner_->Append(data, len);
  }
  unsigned char* BorrowBuffer(size_t len) override {
    return inner_->BorrowBuffer(len);
  }
  absl::Status Sync() override {
    RETURN_IF_ERROR(faults_->Check(StorageOp::kSync, path_));
    return inner_->Sync();
  }
  absl::Status Close() override {
    RETURN_IF_ERROR(faults_->Check(StorageOp::kCloseWrite, path_));
    return inner_->Close();
  }

 private:
  std::unique_ptr<WritableFile> inner_;
  FaultStorage* const faults_;
  const std::string path_;
};

class FaultReadableFile : public ReadableFile {
 public:
  FaultReadableFile(std::unique_ptr<ReadableFile> inner, FaultStorage* faults,
                    std::string path)
      : inner_(std::move(inner)), faults_(faults), path_(std::move(path)) {}
  uint64_t Size() const override { return inner_->Size(); }
  absl::StatusOr<size_t> Read(uint64_t offset, void* buf, size_t len) override {
    RETURN_IF_ERROR(faults_->Check(StorageOp::kRead, path_));
    return inner_->Read(offset, buf, len);
  }
  absl::Status Close() override {
    RETURN_IF_ERROR(faults_->Check(StorageOp::kCloseRead, path_));
    return inner_->Close();
  }
  bool ConcurrentReads() const override { return inner_->ConcurrentReads(); }

 private:
  std::unique_ptr<ReadableFile> inner_;
  FaultStorage* const faults_;
  const std::string path_;
};

}  // namespace

void FaultStorage::Add(StorageFault fault) {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back({std::move(fault), 0});
}

int64_t FaultStorage::calls(StorageOp op) const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_[static_cast<int>(op)];
}

absl::Status FaultStorage::Check(StorageOp op, const std::string& path) {
  absl::Status status;
  std::chrono::milliseconds delay{0};
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++calls_[static_cast<int>(op)];
    for (Rule& r : rules_) {
      const StorageFault& f = r.fault;
      if (f.op != op || path.find(f.path_contains) == std::string::npos) {
        continue;
      }
      const int64_t nth = r.matched++;
      if (nth < f.skip || (f.times >= 0 && nth >= f.skip + f.times)) continue;
      delay = f.delay;
      status = f.status;
      break;  // the first rule that acts decides
    }
  }
  if (delay.count() > 0) std::this_thread::sleep_for(delay);
  if (!status.ok()) ++injected_;
  return status;
}

absl::StatusOr<std::unique_ptr<WritableFile>> FaultStorage::OpenWrite(
    const std::string& path, const WriteOptions& options) {
  RETURN_IF_ERROR(Check(StorageOp::kOpenWrite, path));
  auto file = inner().OpenWrite(path, options);
  if (!file.ok()) return file.status();
  return std::unique_ptr<WritableFile>(
      new FaultWritableFile(*std::move(file), this, path));
}

absl::StatusOr<std::unique_ptr<ReadableFile>> FaultStorage::OpenRead(
    const std::string& path, const ReadOptions& options) {
  RETURN_IF_ERROR(Check(StorageOp::kOpenRead, path));
  auto file = inner().OpenRead(path, options);
  if (!file.ok()) return file.status();
  return std::unique_ptr<ReadableFile>(
      new FaultReadableFile(*std::move(file), this, path));
}

absl::Status FaultStorage::SyncDir(const std::string& path) {
  RETURN_IF_ERROR(Check(StorageOp::kSyncDir, path));
  return inner().SyncDir(path);
}

absl::StatusOr<std::vector<std::string>> FaultStorage::ListDir(
    const std::string& path) {
  RETURN_IF_ERROR(Check(StorageOp::kListDir, path));
  return inner().ListDir(path);
}

absl::Status FaultStorage::WriteAtomic(const std::string& path,
                                       const std::string& data) {
  RETURN_IF_ERROR(Check(StorageOp::kWriteAtomic, path));
  return inner().WriteAtomic(path, data);
}

absl::StatusOr<std::string> FaultStorage::ReadSmall(const std::string& path) {
  RETURN_IF_ERROR(Check(StorageOp::kReadSmall, path));
  return inner().ReadSmall(path);
}

absl::Status FaultStorage::RemoveFiles(const std::string& dir,
                                       const std::vector<std::string>& names) {
  RETURN_IF_ERROR(Check(StorageOp::kRemoveFiles, dir));
  return inner().RemoveFiles(dir, names);
}

absl::StatusOr<std::string> FaultStorage::ClaimDir(const std::string& dir,
                                                   const std::string& owner) {
  RETURN_IF_ERROR(Check(StorageOp::kClaimDir, dir));
  return inner().ClaimDir(dir, owner);
}

}  // namespace ckpt
