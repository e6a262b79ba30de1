#include "node/storage/gcs_storage.h"

#include <mutex>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/checksum.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "nlohmann/json.hpp"
#include "node/storage/gcs_upload.h"
#include "node/storage/object_io.h"

namespace ckpt {
namespace {

// The crc32c=<b64> part of an x-goog-hash header ("" if none).
std::string HashCrc32c(const HttpResponse& rep) {
  auto it = rep.headers.find("x-goog-hash");
  if (it == rep.headers.end()) return "";
  for (absl::string_view part : absl::StrSplit(it->second, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (absl::StartsWith(part, "crc32c=")) return std::string(part.substr(7));
  }
  return "";
}

using ObjectInfo = GcsObjectInfo;

absl::StatusOr<ObjectInfo> GetInfo(GcsClient& client, const GcsObject& obj) {
  GcsCall c;
  c.path = GcsClient::ObjectPath(obj);
  ASSIGN_OR_RETURN(auto rep, client.Do(c));
  return ParseGcsObjectInfo(rep.body, GsUri(obj));
}

// What a read of one object holds to: the generation and whole-object
// CRC32C from its metadata, or, when the reader was given the size instead
// (no metadata GET), the CRC32C of the first answer, which every later one
// must repeat. Shared by the ranged fetches and the file.
struct ObjectPin {
  std::mutex mu;
  std::string crc32c;      // base64; "" until known
  std::string generation;  // from the metadata: asked for; "" = the live one
  std::optional<uint64_t> want_size;
  std::string size_from;  // what gave want_size (ReadOptions)
  // With want_size: the first answer's x-goog-generation, which every
  // later answer must repeat.
  std::string answered_generation;
  std::string Crc() {
    std::lock_guard<std::mutex> lock(mu);
    return crc32c;
  }
};

// Ranged alt=media GETs of one generation of an object. Each answer's
// x-goog-hash (the whole object's CRC32C) must be the pinned one: anything
// else means the object changed under the read. With a size given, each
// answer's range and total must be right (CheckRangedAnswer), and it must
// carry a crc32c and the first answer's generation; a GET refused then
// (416) is followed by a metadata GET, so a wrong size is named as one.
RangeFetch GcsRangeFetch(std::shared_ptr<GcsClient> client, GcsObject obj,
                         std::shared_ptr<ObjectPin> pin) {
  return [client = std::move(client), obj = std::move(obj),
          pin = std::move(pin)](uint64_t off, size_t len,
                                char* dst) -> absl::Status {
    GcsCall c;
    c.path = GcsClient::ObjectPath(obj);
    c.query = {{"alt", "media"}};
    if (!pin->generation.empty())
      c.query.push_back({"generation", pin->generation});
    c.headers = {{"Range", absl::StrCat("bytes=", off, "-", off + len - 1)}};
    c.sink = dst;
    c.sink_capacity = len;
    auto got = client->Do(c);
    if (pin->want_size && absl::IsFailedPrecondition(got.status())) {
      auto info = GetInfo(*client, obj);
      if (info.ok() && info->size != *pin->want_size) {
        return SizeMismatch(GsUri(obj), info->size, *pin->want_size,
                            pin->size_from);
      }
    }
    ASSIGN_OR_RETURN(auto rep, std::move(got));
    if (pin->want_size) {
      RETURN_IF_ERROR(CheckRangedAnswer(rep, off, len, *pin->want_size,
                                        GsUri(obj), pin->size_from));
    }
    if (rep.received != len) {
      return absl::DataLossError(absl::StrCat(GsUri(obj), ": asked for ", len,
                                              " bytes at ", off, ", got ",
                                              rep.received));
    }
    const std::string crc = HashCrc32c(rep);
    auto g = rep.headers.find("x-goog-generation");
    const std::string gen = g == rep.headers.end() ? "" : g->second;
    // Unpinned by metadata (a size given): the answers themselves must
    // show it is one object throughout.
    if (pin->want_size && crc.empty()) {
      return absl::DataLossError(absl::StrCat(
          GsUri(obj), ": a ranged answer at offset ", off,
          " without an x-goog-hash crc32c (nothing shows it is the same "
          "object as the other ranges)"));
    }
    if (crc.empty()) return absl::OkStatus();
    std::lock_guard<std::mutex> lock(pin->mu);
    if (pin->crc32c.empty()) {  // the first answer's
      pin->crc32c = crc;
      pin->answered_generation = gen;
    }
    if (pin->want_size && gen != pin->answered_generation) {
      return absl::DataLossError(
          absl::StrCat(GsUri(obj), ": generation ", EscapeForTerminal(gen),
                       " at offset ", off, " is not the first range's ",
                       EscapeForTerminal(pin->answered_generation),
                       " (it changed during the read)"));
    }
    if (crc != pin->crc32c) {
      return absl::DataLossError(
          absl::StrCat(GsUri(obj), ": x-goog-hash crc32c=", crc, " at offset ",
                       off, " is not the object's crc32c ", pin->crc32c,
                       " (it changed during the read)"));
    }
    return absl::OkStatus();
  };
}

// Ranged reads, plus the CRC32C of a sequential read of the whole object
// compared with the object's own when the last byte arrives.
class GcsReadableFile : public ReadableFile {
 public:
  GcsReadableFile(std::shared_ptr<GcsClient> client, GcsObject obj,
                  uint64_t size, std::shared_ptr<ObjectPin> pin,
                  std::vector<std::pair<uint64_t, uint64_t>> extents)
      : obj_(obj),
        pin_(pin),
        reader_(size, client->config().range_size,
                client->config().ranges_in_flight,
                GcsRangeFetch(client, obj, std::move(pin)), std::move(extents),
                client->buffers()),
        crc_(NewChecksummer(ChecksumKind::kCrc32c)) {}

  uint64_t Size() const override { return reader_.Size(); }

  absl::StatusOr<size_t> Read(uint64_t offset, void* buf, size_t len) override {
    ASSIGN_OR_RETURN(size_t n, reader_.Read(offset, buf, len));
    if (offset != hashed_to_) {
      sequential_ = false;  // not a single pass: no whole-object check
      return n;
    }
    crc_->Update(buf, n);
    hashed_to_ += n;
    if (sequential_ && n > 0 && hashed_to_ == Size()) {
      const std::string want = pin_->Crc();
      std::string got = Crc32cToBase64(static_cast<uint32_t>(crc_->Value()));
      if (!want.empty() && got != want) {
        return absl::DataLossError(absl::StrCat(
            GsUri(obj_), ": crc32c of the ", Size(), " bytes read is ", got,
            ", the object's (x-goog-hash) is ", want));
      }
    }
    return n;
  }

  absl::Status Close() override { return reader_.Close(); }

 private:
  GcsObject obj_;
  std::shared_ptr<ObjectPin> pin_;
  RangedReadableFile reader_;
  std::unique_ptr<Checksummer> crc_;
  uint64_t hashed_to_ = 0;
  bool sequential_ = true;
};

}  // namespace

absl::StatusOr<GcsObjectInfo> ParseGcsObjectInfo(const std::string& body,
                                                 const std::string& what) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  GcsObjectInfo info;
  if (!j.is_object() || !absl::SimpleAtoi(JsonString(j, "size"), &info.size)) {
    return absl::DataLossError(
        absl::StrCat(what, ": object metadata without a size"));
  }
  info.crc32c = JsonString(j, "crc32c");
  info.generation = JsonString(j, "generation");
  return info;
}

absl::Status ParseGcsListPage(const std::string& body, const std::string& what,
                              std::vector<std::string>* names,
                              std::string* next_page_token,
                              std::vector<ListedObject>* objects) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object()) {
    return absl::DataLossError(
        absl::StrCat("listing ", what, ": not a JSON object"));
  }
  auto items = j.find("items");
  if (items != j.end() && items->is_array()) {
    for (const auto& item : *items) {
      if (!item.is_object()) continue;
      if (objects == nullptr) {
        names->push_back(JsonString(item, "name"));
        continue;
      }
      ListedObject o{JsonString(item, "name"), 0,
                     JsonString(item, "generation")};
      if (!absl::SimpleAtoi(JsonString(item, "size"), &o.size) ||
          o.name.size() > kMaxListedName || o.version.size() > kMaxListedName) {
        return absl::DataLossError(absl::StrCat(
            "listing ", EscapeForTerminal(what),
            ": an item without a decimal size, or a name or generation over ",
            kMaxListedName, " bytes"));
      }
      objects->push_back(std::move(o));
    }
  }
  auto prefixes = j.find("prefixes");
  if (prefixes != j.end() && prefixes->is_array()) {
    for (const auto& p : *prefixes) {
      if (p.is_string()) names->push_back(p.get<std::string>());
    }
  }
  *next_page_token = JsonString(j, "nextPageToken");
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Storage>> GcsStorage::Make(
    GcsConfig config, std::shared_ptr<ObjectStoreCounters> counters) {
  return std::make_unique<GcsStorage>(std::move(config), nullptr,
                                      std::move(counters));
}

GcsStorage::GcsStorage(GcsConfig config,
                       std::shared_ptr<GcsCredentials> credentials,
                       std::shared_ptr<ObjectStoreCounters> counters)
    : client_(std::make_shared<GcsClient>(
          std::move(config),
          credentials ? std::move(credentials)
                      : std::make_shared<GcsCredentials>(),
          std::move(counters))) {}

absl::StatusOr<std::unique_ptr<WritableFile>> GcsStorage::OpenWrite(
    const std::string& path, const WriteOptions&) {
  ASSIGN_OR_RETURN(auto obj, ParseGsUri(path));
  return NewGcsWritableFile(client_, obj);
}

absl::StatusOr<std::unique_ptr<ReadableFile>> GcsStorage::OpenRead(
    const std::string& path, const ReadOptions& options) {
  ASSIGN_OR_RETURN(auto obj, ParseGsUri(path));
  auto pin = std::make_shared<ObjectPin>();
  uint64_t size = 0;
  if (options.size) {
    size = *options.size;  // no metadata GET: the ranged GETs check it
    pin->want_size = options.size;
    pin->size_from = options.size_from;
  } else {
    ASSIGN_OR_RETURN(auto info, GetInfo(*client_, obj));
    size = info.size;
    pin->crc32c = info.crc32c;
    pin->generation = info.generation;
  }
  return std::unique_ptr<ReadableFile>(
      new GcsReadableFile(client_, obj, size, std::move(pin), options.extents));
}

absl::Status GcsStorage::List(const GcsObject& dir, bool shallow,
                              std::vector<std::string>* names, int max_results,
                              std::vector<ListedObject>* objects,
                              const ListingBounds& bounds) {
  const std::string prefix = dir.name.empty() ? "" : dir.name + "/";
  const std::string shown = absl::StrCat("gs://", dir.bucket, "/", prefix);
  ListingPager pager(bounds, shown, "nextPageToken");
  auto fetch = [&](const std::string& token,
                   uint64_t ceiling) -> absl::StatusOr<std::string> {
    GcsCall c;
    c.path = absl::StrCat("/storage/v1/b/", UriEncode(dir.bucket, true), "/o");
    c.query = {{"prefix", prefix}};
    if (shallow) c.query.push_back({"delimiter", "/"});
    if (max_results > 0)
      c.query.push_back({"maxResults", std::to_string(max_results)});
    if (!token.empty()) c.query.push_back({"pageToken", token});
    c.max_body = ceiling;
    ASSIGN_OR_RETURN(auto rep, client_->Do(c));
    return std::move(rep.body);
  };
  auto parse = [&](const std::string& body) -> absl::StatusOr<PageTally> {
    const size_t names_before = names->size();
    const size_t objects_before = objects != nullptr ? objects->size() : 0;
    PageTally t;
    RETURN_IF_ERROR(ParseGcsListPage(body, shown, names, &t.token, objects));
    // One page was asked for (maxResults): the listing ends with it.
    t.truncated = max_results == 0 && !t.token.empty();
    // Prefixes count as entries, and their bytes as names', whether the
    // listing keeps them or not.
    t.entries = names->size() - names_before;
    for (size_t i = names_before; i < names->size(); ++i) {
      t.name_bytes += (*names)[i].size();
    }
    if (objects != nullptr) {
      t.entries += objects->size() - objects_before;
      for (size_t i = objects_before; i < objects->size(); ++i) {
        t.name_bytes +=
            (*objects)[i].name.size() + (*objects)[i].version.size();
      }
    }
    return t;
  };
  return PageThrough(pager, fetch, parse);
}

absl::StatusOr<std::vector<std::string>> GcsStorage::ListDir(
    const std::string& path) {
  ASSIGN_OR_RETURN(auto dir, ParseGsUri(path));
  std::vector<std::string> all, names;
  RETURN_IF_ERROR(List(dir, /*shallow=*/true, &all));
  const std::string prefix = dir.name.empty() ? "" : dir.name + "/";
  for (auto n : all) {
    if (n.size() <= prefix.size() || n.rfind(prefix, 0) != 0) continue;
    n = n.substr(prefix.size());
    if (!n.empty() && n.back() == '/') n.pop_back();
    names.push_back(n);
  }
  if (names.empty())
    return absl::NotFoundError(absl::StrCat(path, ": nothing stored under it"));
  return names;
}

absl::StatusOr<std::vector<ListedObject>> GcsStorage::ListTree(
    const std::string& dir, const ListingBounds& bounds) {
  ASSIGN_OR_RETURN(auto obj, ParseGsUri(dir));
  std::vector<std::string> prefixes;  // none asked for; counted if sent
  std::vector<ListedObject> all;
  RETURN_IF_ERROR(List(obj, /*shallow=*/false, &prefixes, 0, &all, bounds));
  return TreeUnder(std::move(all), obj.name, dir, bounds.max_entries);
}

absl::StatusOr<std::vector<std::string>> GcsStorage::ListNames(
    const GcsObject& dir) {
  std::vector<std::string> names;
  RETURN_IF_ERROR(List(dir, /*shallow=*/false, &names));
  return names;
}

absl::StatusOr<bool> GcsStorage::Exists(const std::string& path) {
  ASSIGN_OR_RETURN(auto obj, ParseGsUri(path));
  auto info = GetInfo(*client_, obj);
  if (info.ok()) return true;
  if (!absl::IsNotFound(info.status())) return info.status();
  std::vector<std::string> names;
  RETURN_IF_ERROR(List(obj, /*shallow=*/false, &names, 1));
  return !names.empty();
}

// Everything under path/, and path itself as an object (a file removed
// as a tree).
absl::Status GcsStorage::RemoveTree(const std::string& path) {
  ASSIGN_OR_RETURN(auto dir, ParseGsUri(path));
  ASSIGN_OR_RETURN(auto names, ListNames(dir));
  names.push_back(dir.name);
  for (const auto& n : names)
    RETURN_IF_ERROR(DeleteObject(*client_, {dir.bucket, n}));
  return absl::OkStatus();
}

absl::Status GcsStorage::RemoveFiles(const std::string& dir,
                                     const std::vector<std::string>& names) {
  for (const auto& n : names) {
    ASSIGN_OR_RETURN(auto obj, ParseGsUri(JoinPath(dir, n)));
    RETURN_IF_ERROR(DeleteObject(*client_, obj));
  }
  return absl::OkStatus();  // no directories in a bucket
}

// A composite upload's parts ("<name>.parts/<k>") that a killed process
// left: deleted for the named files only. (A resumable session holds no
// object; GCS drops it after a week.)
absl::StatusOr<int> GcsStorage::AbortUploads(
    const std::string& dir, const std::vector<std::string>& names) {
  int removed = 0;
  for (const auto& n : names) {
    ASSIGN_OR_RETURN(auto obj, ParseGsUri(JoinPath(dir, n)));
    ASSIGN_OR_RETURN(auto parts, ListNames({obj.bucket, obj.name + ".parts"}));
    for (const auto& p : parts) {
      RETURN_IF_ERROR(DeleteObject(*client_, {obj.bucket, p}));
      ++removed;
    }
  }
  return removed;
}

absl::StatusOr<std::string> GcsStorage::ClaimDir(const std::string& dir,
                                                 const std::string& owner) {
  ASSIGN_OR_RETURN(auto obj, ParseGsUri(dir));
  const GcsObject claim{obj.bucket, JoinPath(obj.name, kClaimName)};
  // ifGenerationMatch=0: created only if no such object exists.
  auto put = UploadInOneRequest(*client_, claim, owner.data(), owner.size(),
                                std::nullopt, {{"ifGenerationMatch", "0"}});
  if (absl::IsAlreadyExists(put)) {
    // Ours after all when a retried upload found its own first attempt.
    // Bounded: whoever made the object chose its size.
    auto held = ReadAtMost(*this, GsUri(claim), 4096);
    if (!held.ok() || *held != owner) {
      return absl::AlreadyExistsError(
          absl::StrCat(GsUri(claim), ": another run claimed this step first"));
    }
  } else if (!put.ok()) {
    return put;
  }
  // Nothing else may be there (an older step's files).
  ASSIGN_OR_RETURN(auto names, ListNames(obj));
  for (const auto& n : names) {
    if (n == claim.name) continue;
    RETURN_IF_ERROR(DeleteObject(*client_, claim));
    return absl::AlreadyExistsError(
        absl::StrCat(GsUri(obj), " holds gs://", obj.bucket, "/", n,
                     " (another run's step, or one an earlier run left)"));
  }
  return std::string(kClaimName);
}

absl::Status GcsStorage::WriteAtomic(const std::string& path,
                                     const std::string& data) {
  ASSIGN_OR_RETURN(auto obj, ParseGsUri(path));
  return UploadInOneRequest(*client_, obj, data.data(), data.size());
}

absl::StatusOr<std::string> GcsStorage::ReadSmall(const std::string& path) {
  ASSIGN_OR_RETURN(auto obj, ParseGsUri(path));
  GcsCall c;
  c.path = GcsClient::ObjectPath(obj);
  c.query = {{"alt", "media"}};
  ASSIGN_OR_RETURN(auto rep, client_->Do(c));
  std::string crc = HashCrc32c(rep);
  if (!crc.empty() && crc != Crc32cBase64(rep.body.data(), rep.body.size())) {
    return absl::DataLossError(
        absl::StrCat(path, ": the bytes read do not match x-goog-hash"));
  }
  return rep.body;
}

absl::StatusOr<CacheReport> GcsStorage::PrepareColdRead(
    const std::vector<std::string>&, CacheMode, DirectFallback) {
  return ObjectStoreCacheReport();
}

FilesystemInfo GcsStorage::Filesystem(const std::string& path) {
  auto obj = ParseGsUri(path);
  const GcsConfig& c = client_->config();
  auto token = client_->Token();
  return {"gcs", client_->Endpoint(),
          absl::StrCat("bucket=", obj.ok() ? obj->bucket : "?",
                       ",project=", c.project.empty() ? "-" : c.project,
                       ",upload=", std::string(Name(c.upload)), ",chunk_size=",
                       c.chunk_size, ",single_threshold=", c.single_threshold,
                       ",auth=", token.ok() ? token->source : "none")};
}

}  // namespace ckpt
