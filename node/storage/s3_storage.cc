#include "node/storage/s3_storage.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/checksum.h"
#include "common/names.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "node/storage/object_io.h"
#include "node/storage/s3_listing.h"
#include "node/storage/s3_upload.h"

namespace ckpt {
namespace {

// DELETE of one key; a key already gone is fine.
absl::Status DeleteKey(S3Client& client, const std::string& bucket,
                       const std::string& key) {
  auto rep = client.Do(MakeS3Call(HttpMethod::kDelete, bucket, key));
  return rep.ok() || absl::IsNotFound(rep.status()) ? absl::OkStatus()
                                                    : rep.status();
}

// The object's size from a HEAD.
absl::StatusOr<uint64_t> HeadSize(S3Client& client, const S3Location& loc) {
  S3Call head = MakeS3Call(HttpMethod::kHead, loc.bucket, loc.key);
  ASSIGN_OR_RETURN(auto rep, client.Do(head));
  const std::string length = rep.headers.count("content-length")
                                 ? rep.headers["content-length"]
                                 : "(none)";
  uint64_t size = 0;
  if (!absl::SimpleAtoi(length, &size)) {
    return absl::DataLossError(absl::StrCat(
        "HEAD ", S3Where(loc), ": the server sent Content-Length '", length,
        "', not a byte count"));
  }
  return size;
}

// Ranged GETs of one object, each checked for its length; with the size
// the reader was given (`want`), each answer's range and total too
// (CheckRangedAnswer). A GET refused then (an object shorter than the
// range: 416) is followed by a HEAD, so a wrong size is named as one.
RangeFetch S3RangeFetch(std::shared_ptr<S3Client> client, S3Location loc,
                        std::optional<uint64_t> want, std::string size_from) {
  return [client = std::move(client), loc = std::move(loc), want,
          size_from = std::move(size_from)](uint64_t off, size_t len,
                                            char* dst) -> absl::Status {
    S3Call c = MakeS3Call(
        HttpMethod::kGet, loc.bucket, loc.key, {},
        {{"Range", absl::StrCat("bytes=", off, "-", off + len - 1)}});
    c.sink = dst;
    c.sink_capacity = len;
    auto got = client->Do(c);
    if (want && absl::IsFailedPrecondition(got.status())) {
      auto size = HeadSize(*client, loc);
      if (size.ok() && *size != *want) {
        return SizeMismatch(S3Where(loc), *size, *want, size_from);
      }
    }
    ASSIGN_OR_RETURN(auto rep, std::move(got));
    if (want) {
      RETURN_IF_ERROR(
          CheckRangedAnswer(rep, off, len, *want, S3Where(loc), size_from));
    }
    if (rep.received != len) {
      return absl::DataLossError(absl::StrCat(S3Where(loc), ": asked for ", len,
                                              " bytes at ", off, ", got ",
                                              rep.received));
    }
    return absl::OkStatus();
  };
}

}  // namespace

absl::StatusOr<std::unique_ptr<Storage>> S3Storage::Make(
    S3Config config, std::shared_ptr<ObjectStoreCounters> counters) {
  auto credentials =
      std::make_shared<AwsCredentialChain>(nullptr, config.keys_secret);
  // Keys that should come from a Secret are there at the open, or the
  // open fails naming it: before any round, without a request.
  if (!config.keys_secret.empty()) {
    RETURN_IF_ERROR(credentials->Get().status());
  }
  return std::unique_ptr<Storage>(new S3Storage(
      std::move(config), std::move(credentials), std::move(counters)));
}

S3Storage::S3Storage(S3Config config,
                     std::shared_ptr<AwsCredentialChain> credentials,
                     std::shared_ptr<ObjectStoreCounters> counters)
    : client_(std::make_shared<S3Client>(
          std::move(config), std::move(credentials), std::move(counters))) {}

std::string S3Storage::SpreadPrefix(uint32_t rank, int n) {
  uint64_t h =
      (static_cast<uint64_t>(rank) * 2654435761u) % static_cast<uint64_t>(n);
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned>(h));
  return buf;
}

absl::StatusOr<S3Location> S3Storage::ObjectFor(const std::string& path) const {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(path));
  const int n = client_->config().spread_prefixes;
  if (n <= 0) return loc;
  std::string base = loc.key.substr(loc.key.rfind('/') + 1);
  unsigned rank = 0, k = 0;
  char tail[16] = {0};
  if (std::sscanf(base.c_str(), "__%u_%u%15s", &rank, &k, tail) == 3 &&
      std::string(tail) == ".distcp") {
    loc.key = SpreadPrefix(rank, n) + "/" + loc.key;
  }
  return loc;
}

absl::StatusOr<std::unique_ptr<WritableFile>> S3Storage::OpenWrite(
    const std::string& path, const WriteOptions&) {
  ASSIGN_OR_RETURN(auto loc, ObjectFor(path));
  return NewS3Upload(client_, loc);
}

absl::StatusOr<std::unique_ptr<ReadableFile>> S3Storage::OpenRead(
    const std::string& path, const ReadOptions& options) {
  ASSIGN_OR_RETURN(auto loc, ObjectFor(path));
  uint64_t size = 0;
  if (options.size) {
    size = *options.size;  // no HEAD: the ranged GETs check it
  } else {
    ASSIGN_OR_RETURN(size, HeadSize(*client_, loc));
  }
  return std::unique_ptr<ReadableFile>(new RangedReadableFile(
      size, client_->config().range_size, client_->config().ranges_in_flight,
      S3RangeFetch(client_, loc, options.size, options.size_from),
      options.extents, client_->buffers()));
}

absl::StatusOr<std::vector<std::string>> S3Storage::ListDir(
    const std::string& path) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(path));
  std::string prefix = loc.key.empty() ? "" : loc.key + "/";
  std::vector<std::string> names;
  RETURN_IF_ERROR(ListObjectPages(
      *client_, loc.bucket, prefix, /*delimited=*/true, ListingBounds{},
      [&](const std::string& body) -> absl::StatusOr<PageTally> {
        PageTally t;
        auto take = [&](std::string n) {
          if (n.size() <= prefix.size() || n.rfind(prefix, 0) != 0) return;
          n = n.substr(prefix.size());
          if (!n.empty() && n.back() == '/') n.pop_back();
          t.name_bytes += n.size();
          names.push_back(std::move(n));
        };
        for (auto& p : XmlTexts(body, "Prefix")) take(std::move(p));
        for (auto& k : XmlTexts(body, "Key")) take(std::move(k));
        t.entries = XmlValues(body, "Contents").size() +
                    XmlValues(body, "CommonPrefixes").size();
        return t;
      }));
  if (names.empty())
    return absl::NotFoundError(absl::StrCat(path, ": nothing stored under it"));
  return names;
}

absl::StatusOr<std::vector<ListedObject>> S3Storage::ListTree(
    const std::string& dir, const ListingBounds& bounds) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(dir));
  const std::string prefix = loc.key.empty() ? "" : loc.key + "/";
  std::vector<ListedObject> all;
  const std::string shown = EscapeForTerminal(dir);
  RETURN_IF_ERROR(ListObjectPages(
      *client_, loc.bucket, prefix, /*delimited=*/false, bounds,
      [&](const std::string& body) -> absl::StatusOr<PageTally> {
        PageTally t;
        // A hostile server's CommonPrefixes count too, though kept none.
        for (const std::string& p : XmlTexts(body, "Prefix")) {
          t.name_bytes += p.size();
        }
        t.entries += XmlValues(body, "CommonPrefixes").size();
        for (const std::string& item : XmlValues(body, "Contents")) {
          ListedObject o{XmlValue(item, "Key"), 0, XmlValue(item, "ETag")};
          if (!absl::SimpleAtoi(XmlValue(item, "Size"), &o.size) ||
              o.name.size() > kMaxListedName ||
              o.version.size() > kMaxListedName) {
            return absl::DataLossError(absl::StrCat(
                "listing ", shown,
                ": an object without a size, or a key or ETag over ",
                kMaxListedName, " bytes"));
          }
          ++t.entries;
          t.name_bytes += o.name.size() + o.version.size();
          all.push_back(std::move(o));
        }
        return t;
      }));
  return TreeUnder(std::move(all), loc.key, dir, bounds.max_entries);
}

absl::StatusOr<std::vector<std::string>> S3Storage::ListKeys(
    const S3Location& dir) {
  std::string prefix = dir.key.empty() ? "" : dir.key + "/";
  std::vector<std::string> keys;
  RETURN_IF_ERROR(ListObjectPages(
      *client_, dir.bucket, prefix, /*delimited=*/false, ListingBounds{},
      [&](const std::string& body) -> absl::StatusOr<PageTally> {
        PageTally t;
        for (auto& k : XmlTexts(body, "Key")) {
          ++t.entries;
          t.name_bytes += k.size();
          keys.push_back(std::move(k));
        }
        return t;
      }));
  return keys;
}

absl::StatusOr<bool> S3Storage::Exists(const std::string& path) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(path));
  auto rep = client_->Do(MakeS3Call(HttpMethod::kHead, loc.bucket, loc.key));
  if (rep.ok()) return true;
  if (!absl::IsNotFound(rep.status())) return rep.status();
  ASSIGN_OR_RETURN(auto keys, ListKeys(loc));
  return !keys.empty();
}

// The keys under path/, and path itself as a key (a file removed as a
// tree). Shard keys spread under hash prefixes live elsewhere; cleanup
// removes those by name (RemoveFiles).
absl::Status S3Storage::RemoveTree(const std::string& path) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(path));
  ASSIGN_OR_RETURN(auto keys, ListKeys(loc));
  if (!loc.key.empty()) keys.push_back(loc.key);
  for (const auto& k : keys) {
    // A listed key under the prefix whose dot segments an HTTP client
    // would collapse ("p/x/../../y") names another object: never deleted.
    if (!PathIsUnder(k, loc.key) ||
        !CheckRelativeName(k, "a key listed under " + path).ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "refusing to delete s3://", loc.bucket, "/", EscapeForTerminal(k),
          " under ", path,
          ": a key with empty, '.' or '..' components, which would be sent "
          "as another key"));
    }
    RETURN_IF_ERROR(DeleteKey(*client_, loc.bucket, k));
  }
  return absl::OkStatus();
}

absl::Status S3Storage::RemoveFiles(const std::string& dir,
                                    const std::vector<std::string>& names) {
  for (const auto& n : names) {
    ASSIGN_OR_RETURN(auto loc, ObjectFor(JoinPath(dir, n)));
    RETURN_IF_ERROR(DeleteKey(*client_, loc.bucket, loc.key));
  }
  return absl::OkStatus();  // no directories in a bucket
}

absl::StatusOr<std::vector<S3Upload>> S3Storage::ListUploads(
    const std::string& bucket, const std::string& prefix) {
  std::vector<S3Upload> out;
  RETURN_IF_ERROR(ListUploadPages(
      *client_, bucket, prefix, ListingBounds{},
      [&](const std::string& body) -> absl::StatusOr<PageTally> {
        PageTally t;
        for (const auto& upload : XmlValues(body, "Upload")) {
          S3Upload u{XmlValue(upload, "Key"), XmlValue(upload, "UploadId"),
                     XmlValue(upload, "Initiated")};
          ++t.entries;
          t.name_bytes += u.key.size() + u.upload_id.size();
          if (!u.key.empty() && !u.upload_id.empty()) {
            out.push_back(std::move(u));
          }
        }
        return t;
      }));
  return out;
}

absl::Status S3Storage::AbortUpload(const std::string& bucket,
                                    const S3Upload& upload) {
  auto del = client_->Do(MakeS3Call(HttpMethod::kDelete, bucket, upload.key,
                                    {{"uploadId", upload.upload_id}}));
  return del.ok() || absl::IsNotFound(del.status()) ? absl::OkStatus()
                                                    : del.status();
}

absl::StatusOr<int> S3Storage::AbortUploads(
    const std::string& dir, const std::vector<std::string>& names) {
  // The keys, grouped by their "directory" (spread prefixes put shards of
  // one step under several): one ListMultipartUploads per group.
  std::string bucket;
  std::map<std::string, std::set<std::string>> by_prefix;
  for (const auto& n : names) {
    ASSIGN_OR_RETURN(auto loc, ObjectFor(JoinPath(dir, n)));
    bucket = loc.bucket;
    by_prefix[loc.key.substr(0, loc.key.rfind('/') + 1)].insert(loc.key);
  }
  int aborted = 0;
  for (const auto& [prefix, keys] : by_prefix) {
    ASSIGN_OR_RETURN(auto uploads, ListUploads(bucket, prefix));
    for (const auto& u : uploads) {
      if (!keys.count(u.key)) continue;  // not one of this run's files
      RETURN_IF_ERROR(AbortUpload(bucket, u));
      ++aborted;
    }
  }
  return aborted;
}

absl::StatusOr<bool> S3Storage::PutClaim(const S3Location& claim,
                                         const std::string& owner) {
  const S3Claim mode = client_->config().claim;
  if (mode == S3Claim::kListing) return false;
  S3Call put = MakeS3Call(HttpMethod::kPut, claim.bucket, claim.key, {},
                          {{"If-None-Match", "*"}});
  put.body = owner.data();
  put.body_len = owner.size();
  auto rep = SendS3Bytes(*client_, put, S3Where(claim));
  if (rep.ok() && mode == S3Claim::kAuto) {
    // Some stores accept the header and ignore it: then two runs would
    // both "win". The key exists now, so the same request must fail; if it
    // does not, this store has no conditional PUT: claim by listing.
    auto again = SendS3Bytes(*client_, put, S3Where(claim));
    if (again.ok()) {
      RETURN_IF_ERROR(DeleteKey(*client_, claim.bucket, claim.key));
      return false;
    }
    if (!absl::IsAlreadyExists(again.status()) &&
        !absl::IsAborted(again.status())) {
      return again.status();
    }
  }
  if (rep.ok()) return true;
  if (absl::IsUnimplemented(rep.status()) && mode == S3Claim::kAuto) {
    return false;  // this store has none: claim by listing
  }
  if (absl::IsAlreadyExists(rep.status()) || absl::IsAborted(rep.status())) {
    // Ours after all when a retried PUT found its own first attempt.
    auto held =
        client_->Do(MakeS3Call(HttpMethod::kGet, claim.bucket, claim.key));
    if (held.ok() && held->body == owner) return true;
    return absl::AlreadyExistsError(
        absl::StrCat(S3Where(claim), ": another run claimed this step first"));
  }
  return rep.status();
}

absl::StatusOr<std::string> S3Storage::ClaimDir(const std::string& dir,
                                                const std::string& owner) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(dir));
  S3Location claim{loc.bucket, JoinPath(loc.key, kClaimName)};
  ASSIGN_OR_RETURN(bool conditional, PutClaim(claim, owner));
  if (!conditional) {
    // No conditional PUT: a claim object of this run's own, then a
    // listing. A run wins only if its listing, made after its own write,
    // holds nothing else; of two racing runs at most one sees only itself
    // (both may lose: then both move on). Needs read-after-write listings.
    claim.key = absl::StrCat(claim.key, "-", owner);
    RETURN_IF_ERROR(WriteAtomic(S3Where(claim), owner));
  }
  // Either way nothing else may be there (an older step's files, or a claim
  // of the other kind).
  ASSIGN_OR_RETURN(auto keys, ListKeys(loc));
  for (const auto& k : keys) {
    if (k == claim.key) continue;
    RETURN_IF_ERROR(DeleteKey(*client_, claim.bucket, claim.key));
    return absl::AlreadyExistsError(
        absl::StrCat(S3Where(loc), " holds s3://", loc.bucket, "/", k,
                     " (another run's step, or one an earlier run left)"));
  }
  return claim.key.substr(loc.key.empty() ? 0 : loc.key.size() + 1);
}

absl::Status S3Storage::WriteAtomic(const std::string& path,
                                    const std::string& data) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(path));
  S3Call put = MakeS3Call(HttpMethod::kPut, loc.bucket, loc.key);
  put.body = data.data();
  put.body_len = data.size();
  return SendS3Bytes(*client_, put, S3Where(loc)).status();
}

absl::StatusOr<std::string> S3Storage::ReadSmall(const std::string& path) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(path));
  ASSIGN_OR_RETURN(
      auto rep, client_->Do(MakeS3Call(HttpMethod::kGet, loc.bucket, loc.key)));
  return rep.body;
}

absl::StatusOr<CacheReport> S3Storage::PrepareColdRead(
    const std::vector<std::string>&, CacheMode, DirectFallback) {
  return ObjectStoreCacheReport();
}

FilesystemInfo S3Storage::Filesystem(const std::string& path) {
  auto loc = ParseS3Uri(path);
  return {"s3", client_->Endpoint(),
          absl::StrCat(
              "bucket=", loc.ok() ? loc->bucket : "?",
              ",region=", client_->config().region,
              ",part_size=", client_->config().part_size,
              ",payload=", std::string(Name(client_->config().payload_signing)),
              ",checksum=", std::string(Name(client_->config().checksum)))};
}

}  // namespace ckpt
