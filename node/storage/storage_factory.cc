#include "node/storage/storage_factory.h"

#include <functional>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/names.h"
#include "common/status_macros.h"
#include "node/storage/gcs_storage.h"
#include "node/storage/memory_storage.h"
#include "node/storage/null_storage.h"
#include "node/storage/posix_storage.h"
#include "node/storage/s3_storage.h"

namespace ckpt {

absl::StatusOr<std::string> ReadWhole(ReadableFile& file,
                                      const std::string& path) {
  std::string text(file.Size(), '\0');
  for (size_t at = 0; at < text.size();) {
    ASSIGN_OR_RETURN(size_t n,
                     file.Read(at, text.data() + at, text.size() - at));
    if (n == 0) {
      return absl::DataLossError(
          absl::StrCat(path, ": ended at byte ", at, " of ", text.size()));
    }
    at += n;
  }
  return text;
}

absl::StatusOr<std::string> ReadAtMost(Storage& storage,
                                       const std::string& path,
                                       uint64_t max_bytes) {
  ASSIGN_OR_RETURN(auto f, storage.OpenRead(path, ReadOptions{}));
  if (f->Size() > max_bytes) {
    return absl::FailedPreconditionError(absl::StrCat(path, " is ", f->Size(),
                                                      " bytes, more than the ",
                                                      max_bytes, " it can be"));
  }
  ASSIGN_OR_RETURN(std::string text, ReadWhole(*f, path));
  RETURN_IF_ERROR(f->Close());
  return text;
}

absl::StatusOr<std::vector<std::string>> ListEntries(Storage& storage,
                                                     const std::string& dir) {
  ASSIGN_OR_RETURN(std::vector<std::string> names, storage.ListDir(dir));
  std::vector<std::string> usable;
  usable.reserve(names.size());
  for (auto& n : names) {
    absl::Status s = CheckEntryName(n, absl::StrCat("an entry of ", dir));
    if (s.ok()) {
      usable.push_back(std::move(n));
    } else {
      LOG_WARN("listing: ignored %s", s.message());
    }
  }
  return usable;
}

std::string NativePath(const std::string& uri) {
  if (absl::StartsWith(uri, "file://")) return uri.substr(7);
  return uri;
}

namespace {

// Object-store backends (their HTTP connection pools, credentials and
// tokens) are kept for the process's life, one per scheme and option set:
// every round after the first starts on kept-alive connections, as a
// training job's long-lived client does, and rounds stay comparable.
std::shared_ptr<Storage> Shared(
    const std::string& scheme, const std::map<std::string, std::string>& o,
    const std::function<std::unique_ptr<Storage>()>& make) {
  static std::mutex mu;
  static auto* cache = new std::map<std::string, std::shared_ptr<Storage>>;
  std::string key = scheme;
  for (const auto& [k, v] : o) absl::StrAppend(&key, "\n", k, "=", v);
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*cache)[key];
  if (!slot) slot = make();
  return slot;
}

}  // namespace

absl::StatusOr<StorageLocation> OpenStorage(
    const std::string& uri, const std::map<std::string, std::string>& options) {
  StorageLocation loc;
  if (absl::StartsWith(uri, "mem://")) {
    loc.storage = MemoryStorage::Make();
    loc.path = uri;
    return loc;
  }
  if (absl::StartsWith(uri, "null://")) {
    auto rate = NullStorage::RateOf(uri);
    if (!rate.ok()) return rate.status();
    loc.storage = NullStorage::Make(*rate);
    loc.path = uri;
    return loc;
  }
  if (absl::StartsWith(uri, "s3://")) {
    auto cfg = S3ConfigFromOptions(options);
    if (!cfg.ok()) return cfg.status();
    auto parsed = ParseS3Uri(uri);
    if (!parsed.ok()) return parsed.status();
    loc.storage = Shared("s3", options, [&] { return S3Storage::Make(*cfg); });
    loc.path = uri;
    return loc;
  }
  if (absl::StartsWith(uri, "gs://")) {
    auto cfg = GcsConfigFromOptions(options);
    if (!cfg.ok()) return cfg.status();
    auto parsed = ParseGsUri(uri);
    if (!parsed.ok()) return parsed.status();
    loc.storage = Shared("gs", options, [&] { return GcsStorage::Make(*cfg); });
    loc.path = uri;
    return loc;
  }
  size_t scheme = uri.find("://");
  if (scheme != std::string::npos && !absl::StartsWith(uri, "file://")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", uri,
        "': unknown URI scheme; expected a path, file://, s3:// or gs://"));
  }
  loc.path = NativePath(uri);
  auto flavour = options.find("storage.flavour");
  loc.storage = PosixStorage::Make(
      flavour == options.end() ? "auto" : flavour->second, loc.path);
  if (loc.path.empty()) {
    return absl::InvalidArgumentError("empty storage path");
  }
  return loc;
}

}  // namespace ckpt
