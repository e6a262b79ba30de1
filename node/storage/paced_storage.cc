#include "node/storage/paced_storage.h"

#include <algorithm>
#include <thread>
#include <utility>

namespace ckpt {
namespace {

class PacedWritableFile : public WritableFile {
 public:
  PacedWritableFile(std::unique_ptr<WritableFile> inner,
                    std::shared_ptr<Pacer> pacer)
      : inner_(std::move(inner)), pacer_(std::move(pacer)) {}
  absl::Status Append(const void* data, size_t len) override {
    absl::Status s = inner_->Append(data, len);
    if (s.ok()) pacer_->Take(len);
    return s;
  }
  unsigned char* BorrowBuffer(size_t len) override {
    return inner_->BorrowBuffer(len);
  }
  absl::Status Sync() override { return inner_->Sync(); }
  absl::Status Close() override { return inner_->Close(); }

 private:
  std::unique_ptr<WritableFile> inner_;
  std::shared_ptr<Pacer> pacer_;
};

class PacedReadableFile : public ReadableFile {
 public:
  PacedReadableFile(std::unique_ptr<ReadableFile> inner,
                    std::shared_ptr<Pacer> pacer)
      : inner_(std::move(inner)), pacer_(std::move(pacer)) {}
  uint64_t Size() const override { return inner_->Size(); }
  absl::StatusOr<size_t> Read(uint64_t offset, void* buf, size_t len) override {
    absl::StatusOr<size_t> got = inner_->Read(offset, buf, len);
    if (got.ok() && *got > 0) pacer_->Take(*got);
    return got;
  }
  absl::Status Close() override { return inner_->Close(); }
  bool ConcurrentReads() const override { return inner_->ConcurrentReads(); }
  std::optional<uint64_t> CachedBytes(uint64_t offset,
                                      uint64_t length) override {
    return inner_->CachedBytes(offset, length);
  }

 private:
  std::unique_ptr<ReadableFile> inner_;
  std::shared_ptr<Pacer> pacer_;
};

}  // namespace

void Pacer::Take(uint64_t bytes) {
  Clock::time_point done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Clock::time_point start = std::max(Clock::now(), next_free_);
    next_free_ =
        start +
        std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(static_cast<double>(bytes) / rate_));
    done = next_free_;
  }
  std::this_thread::sleep_until(done);
}

PacedStorage::PacedStorage(std::shared_ptr<Storage> inner,
                           double bytes_per_second)
    : ForwardingStorage(std::move(inner)),
      pacer_(std::make_shared<Pacer>(bytes_per_second)) {}

PacedStorage::PacedStorage(std::shared_ptr<Storage> inner,
                           std::shared_ptr<Pacer> pacer)
    : ForwardingStorage(std::move(inner)), pacer_(std::move(pacer)) {}

absl::StatusOr<std::unique_ptr<WritableFile>> PacedStorage::OpenWrite(
    const std::string& path, const WriteOptions& options) {
  auto file = inner().OpenWrite(path, options);
  if (!file.ok()) return file.status();
  return std::unique_ptr<WritableFile>(
      new PacedWritableFile(*std::move(file), pacer_));
}

absl::StatusOr<std::unique_ptr<ReadableFile>> PacedStorage::OpenRead(
    const std::string& path, const ReadOptions& options) {
  auto file = inner().OpenRead(path, options);
  if (!file.ok()) return file.status();
  return std::unique_ptr<ReadableFile>(
      new PacedReadableFile(*std::move(file), pacer_));
}

}  // namespace ckpt
