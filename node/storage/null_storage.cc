#include "node/storage/null_storage.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace ckpt {
namespace {

class NullWritableFile : public WritableFile {
 public:
  absl::Status Append(const void*, size_t) override { return absl::OkStatus(); }
  absl::Status Sync() override { return absl::OkStatus(); }
  absl::Status Close() override { return absl::OkStatus(); }
};

absl::Status NoLoads(const std::string& path) {
  return absl::FailedPreconditionError(absl::StrCat(
      path,
      ": null:// storage discards writes and cannot be loaded from; "
      "use it with CKPT_MODE=save-only"));
}

}  // namespace

std::unique_ptr<Storage> NullStorage::Make() {
  return std::make_unique<NullStorage>();
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
  return std::unique_ptr<WritableFile>(new NullWritableFile());
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
    const std::vector<std::string>& paths, CacheMode, DirectFallback) {
  return NoLoads(paths.empty() ? std::string("null://") : paths.front());
}

}  // namespace ckpt
