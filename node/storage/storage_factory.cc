#include "node/storage/storage_factory.h"

#include <algorithm>
#include <functional>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/names.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "node/storage/gcs_storage.h"
#include "node/storage/memory_storage.h"
#include "node/storage/null_storage.h"
#include "node/storage/paced_storage.h"
#include "node/storage/posix_storage.h"
#include "node/storage/s3_storage.h"

namespace ckpt {

absl::Status ReadFully(ReadableFile& file, uint64_t offset, void* buf,
                       size_t len, const std::string& path) {
  char* out = static_cast<char*>(buf);
  for (size_t at = 0; at < len;) {
    ASSIGN_OR_RETURN(size_t n, file.Read(offset + at, out + at, len - at));
    if (n == 0) {
      return absl::DataLossError(absl::StrCat(
          path, ": ended at byte ", offset + at, " of ", offset + len));
    }
    at += n;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadWhole(ReadableFile& file,
                                      const std::string& path) {
  std::string text(file.Size(), '\0');
  RETURN_IF_ERROR(ReadFully(file, 0, text.data(), text.size(), path));
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

absl::Status TooManyListed(const std::string& shown, uint64_t max_objects) {
  return absl::ResourceExhaustedError(
      absl::StrCat(EscapeForTerminal(shown), " holds more than ", max_objects,
                   " objects; expected a smaller dataset, or a larger "
                   "dataset.list_max_objects (CKPT_LIST_MAX_OBJECTS)"));
}

absl::StatusOr<std::vector<ListedObject>> TreeUnder(
    std::vector<ListedObject> all, const std::string& key,
    const std::string& shown, uint64_t max_objects) {
  const std::string prefix = key.empty() ? "" : key + "/";
  std::vector<ListedObject> out;
  for (ListedObject& o : all) {
    if (o.name.size() < prefix.size() || o.name.rfind(prefix, 0) != 0) {
      // The server was asked for this prefix only: a key outside it is a
      // server that does not list what it was asked.
      return absl::DataLossError(absl::StrCat(
          "listing ", EscapeForTerminal(shown), ": the server listed ",
          EscapeForTerminal(o.name.substr(0, 256)),
          ", a key outside the prefix it was asked for"));
    }
    if (o.name.size() == prefix.size() || o.name.back() == '/') {
      continue;  // the prefix itself, or a folder marker
    }
    o.name = o.name.substr(prefix.size());
    RETURN_IF_ERROR(
        CheckRelativeName(o.name, absl::StrCat("an object under ", shown)));
    if (out.size() >= max_objects) return TooManyListed(shown, max_objects);
    out.push_back(std::move(o));
  }
  if (out.empty()) {
    return absl::NotFoundError(
        absl::StrCat(EscapeForTerminal(shown), ": nothing stored under it"));
  }
  return out;
}

std::string NativePath(const std::string& uri) {
  if (absl::StartsWith(uri, "file://")) return uri.substr(7);
  return uri;
}

StorageSet::StorageSet(std::shared_ptr<MemoryStore> memory)
    : counters_(std::make_shared<ObjectStoreCounters>()),
      probes_(std::make_shared<EvictionProbes>()),
      memory_(memory ? std::move(memory) : std::make_shared<MemoryStore>()) {}

size_t StorageSet::TrimBuffers() {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (Kept& k : object_stores_) n += k.storage->TrimBuffers();
  return n;
}

absl::StatusOr<StorageLocation> StorageSet::Open(const std::string& uri,
                                                 const BackendOptions& options,
                                                 LocationRoot root) {
  StorageLocation loc;
  if (absl::StartsWith(uri, "mem://")) {
    loc.storage = MemoryStorage::Make(memory_);
    if (std::shared_ptr<Pacer> pacer = memory_->pacer()) {
      loc.storage =
          std::make_shared<PacedStorage>(std::move(loc.storage), pacer);
    }
    if (MemoryStore::Wrapper wrap = memory_->wrapper()) {
      loc.storage = wrap(std::move(loc.storage));
    }
    loc.path = uri;
    return loc;
  }
  if (absl::StartsWith(uri, "null://")) {
    ASSIGN_OR_RETURN(double rate, NullStorage::RateOf(uri));
    loc.storage = NullStorage::Make();
    if (rate > 0) {
      loc.storage =
          std::make_shared<PacedStorage>(std::move(loc.storage), rate);
    }
    loc.path = uri;
    return loc;
  }
  const bool s3 = absl::StartsWith(uri, "s3://");
  if (s3 || absl::StartsWith(uri, "gs://")) {
    // Checked before the kept backend is looked up: the URI is the
    // caller's, the backend the set's.
    if (s3) {
      RETURN_IF_ERROR(ParseS3Uri(uri).status());
    } else {
      RETURN_IF_ERROR(ParseGsUri(uri).status());
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto kept = std::find_if(
        object_stores_.begin(), object_stores_.end(), [&](const Kept& k) {
          return k.s3 == s3 &&
                 (s3 ? k.s3_config == options.s3 : k.gcs_config == options.gcs);
        });
    if (kept == object_stores_.end()) {
      absl::StatusOr<std::unique_ptr<Storage>> made =
          s3 ? S3Storage::Make(options.s3, counters_)
             : GcsStorage::Make(options.gcs, counters_);
      if (!made.ok()) return made.status();
      Kept k;
      k.s3 = s3;
      if (s3) {
        k.s3_config = options.s3;
      } else {
        k.gcs_config = options.gcs;
      }
      k.storage = std::move(*made);
      object_stores_.push_back(std::move(k));
      kept = object_stores_.end() - 1;
    }
    loc.storage = kept->storage;
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
  if (loc.path.empty()) {
    return absl::InvalidArgumentError("empty storage path");
  }
  ASSIGN_OR_RETURN(
      loc.storage,
      PosixStorage::Make(options.flavour, loc.path, probes_,
                         root == LocationRoot::kAsGiven ? loc.path : ""));
  return loc;
}

absl::StatusOr<StorageLocation> OpenStorage(const std::string& uri,
                                            const BackendOptions& options,
                                            LocationRoot root) {
  return StorageSet().Open(uri, options, root);
}

}  // namespace ckpt
