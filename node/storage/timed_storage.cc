#include "node/storage/timed_storage.h"

#include <mutex>
#include <utility>

namespace ckpt {
namespace {

class TimedWritableFile : public WritableFile {
 public:
  TimedWritableFile(std::unique_ptr<WritableFile> inner, OpStats* stats)
      : inner_(std::move(inner)), stats_(stats) {}
  absl::Status Append(const void* data, size_t len) override {
    return TimeInto(stats_->write, [&] { return inner_->Append(data, len); });
  }
  unsigned char* BorrowBuffer(size_t len) override {
    return inner_->BorrowBuffer(len);
  }
  absl::Status Sync() override {
    return TimeInto(stats_->fsync, [&] { return inner_->Sync(); });
  }
  absl::Status Close() override {
    return TimeInto(stats_->close, [&] { return inner_->Close(); });
  }

 private:
  std::unique_ptr<WritableFile> inner_;
  OpStats* const stats_;
};

class TimedReadableFile : public ReadableFile {
 public:
  TimedReadableFile(std::unique_ptr<ReadableFile> inner, OpStats* stats)
      : inner_(std::move(inner)), stats_(stats) {}
  uint64_t Size() const override { return inner_->Size(); }
  absl::StatusOr<size_t> Read(uint64_t offset, void* buf, size_t len) override {
    const auto t0 = std::chrono::steady_clock::now();
    absl::StatusOr<size_t> got = inner_->Read(offset, buf, len);
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - t0)
                        .count();
    std::lock_guard<std::mutex> lock(mu_);
    stats_->read.Record(static_cast<uint64_t>(ns));
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
  OpStats* const stats_;
  std::mutex mu_;  // concurrent Reads record one at a time
};

}  // namespace

absl::StatusOr<std::unique_ptr<WritableFile>> TimedStorage::OpenWrite(
    const std::string& path, const WriteOptions& options) {
  auto file =
      TimeInto(stats_->open, [&] { return inner().OpenWrite(path, options); });
  if (!file.ok()) return file.status();
  return std::unique_ptr<WritableFile>(
      new TimedWritableFile(*std::move(file), stats_));
}

absl::StatusOr<std::unique_ptr<ReadableFile>> TimedStorage::OpenRead(
    const std::string& path, const ReadOptions& options) {
  auto file =
      TimeInto(stats_->open, [&] { return inner().OpenRead(path, options); });
  if (!file.ok()) return file.status();
  return std::unique_ptr<ReadableFile>(
      new TimedReadableFile(*std::move(file), stats_));
}

}  // namespace ckpt
