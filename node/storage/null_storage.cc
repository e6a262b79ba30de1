#include "node/storage/null_storage.h"

#include <chrono>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace ckpt {
namespace {

class NullWritableFile : public WritableFile {
 public:
  explicit NullWritableFile(double bytes_per_second)
      : rate_(bytes_per_second), start_(std::chrono::steady_clock::now()) {}
  absl::Status Append(const void*, size_t n) override {
    bytes_ += n;
    if (rate_ > 0) {  // paced: this file's bytes so far at the rate
      std::this_thread::sleep_until(
          start_ + std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::duration<double>(
                           static_cast<double>(bytes_) / rate_)));
    }
    return absl::OkStatus();
  }
  absl::Status Sync() override { return absl::OkStatus(); }
  absl::Status Close() override { return absl::OkStatus(); }

 private:
  double rate_;
  std::chrono::steady_clock::time_point start_;
  uint64_t bytes_ = 0;
};

absl::Status NoLoads(const std::string& path) {
  return absl::FailedPreconditionError(absl::StrCat(
      path,
      ": null:// storage discards writes and cannot be loaded from; "
      "use it with CKPT_MODE=save-only"));
}

}  // namespace

std::unique_ptr<Storage> NullStorage::Make(double bytes_per_second) {
  return std::make_unique<NullStorage>(bytes_per_second);
}

absl::StatusOr<double> NullStorage::RateOf(const std::string& uri) {
  absl::string_view rest = uri;
  if (!absl::ConsumePrefix(&rest, "null://")) return 0.0;
  const absl::string_view component = rest.substr(0, rest.find('/'));
  absl::string_view number = component;
  if (!absl::ConsumePrefix(&number, "mibps-")) return 0.0;
  double mib = 0;
  if (!absl::SimpleAtod(number, &mib) || !(mib > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", component,
                     "': expected null://mibps-N with N MiB/s > 0 (or "
                     "null://NAME)"));
  }
  return mib * (1 << 20);
}

absl::StatusOr<std::unique_ptr<WritableFile>> NullStorage::OpenWrite(
    const std::string&, const WriteOptions&) {
  return std::unique_ptr<WritableFile>(new NullWritableFile(rate_));
}

absl::StatusOr<std::unique_ptr<ReadableFile>> NullStorage::OpenRead(
    const std::string& path, const ReadOptions&) {
  return NoLoads(path);
}

absl::StatusOr<std::vector<std::string>> NullStorage::ListDir(
    const std::string& path) {
  return absl::NotFoundError(
      absl::StrCat(path, ": null storage holds nothing"));
}

absl::StatusOr<std::string> NullStorage::ReadSmall(const std::string& path) {
  return NoLoads(path);
}

absl::StatusOr<CacheReport> NullStorage::PrepareColdRead(
    const std::vector<std::string>& paths, CacheMode) {
  return NoLoads(paths.empty() ? std::string("null://") : paths.front());
}

}  // namespace ckpt
