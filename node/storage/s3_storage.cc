#include "node/storage/s3_storage.h"

#include <openssl/evp.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/checksum.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "node/storage/object_io.h"

namespace ckpt {
namespace {

// Base64 of the MD5 of the bytes: the Content-MD5 header.
std::string Md5Base64(const void* data, size_t len) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data, len, md, &n, EVP_md5(), nullptr);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(md), n));
}

constexpr char kCrcHeader[] = "x-amz-checksum-crc32c";

// Sends a call that uploads bytes (PUT or part). With s3.checksum=md5 a
// Content-MD5 goes along, which the server checks (400 BadDigest). With
// s3.checksum=crc32c their CRC32C goes along (into *crc when given), and a
// server that echoes one must echo ours: anything else means it stored
// different bytes (S3 itself answers 400 BadDigest first). The ETag is
// opaque (not an MD5 on SSE-KMS buckets, for one) and never compared.
// `what` names the upload in errors.
absl::StatusOr<HttpResponse> SendBytes(S3Client& client, S3Call call,
                                       const std::string& what,
                                       std::string* crc = nullptr) {
  if (client.config().checksum == "md5") {
    call.headers.push_back(
        {"Content-MD5", Md5Base64(call.body, call.body_len)});
    return client.Do(call);
  }
  if (client.config().checksum != "crc32c") return client.Do(call);
  std::string sent = Crc32cBase64(call.body, call.body_len);
  call.headers.push_back({kCrcHeader, sent});
  ASSIGN_OR_RETURN(auto rep, client.Do(call));
  auto it = rep.headers.find(kCrcHeader);
  if (it != rep.headers.end() && it->second != sent) {
    return absl::DataLossError(
        absl::StrCat(what, ": the server's ", kCrcHeader, " ", it->second,
                     " is not the CRC32C of what was sent (", sent, ")"));
  }
  if (crc) *crc = sent;
  return rep;
}

// DELETE of one key; a key already gone is fine.
absl::Status DeleteKey(S3Client& client, const std::string& bucket,
                       const std::string& key) {
  auto rep = client.Do(MakeS3Call("DELETE", bucket, key));
  return rep.ok() || absl::IsNotFound(rep.status()) ? absl::OkStatus()
                                                    : rep.status();
}

std::string Where(const S3Location& loc) {
  return absl::StrCat("s3://", loc.bucket, "/", loc.key);
}

// Fills one buffer at a time, from Append's bytes or, with BorrowBuffer,
// by the caller generating straight into it. Until the bytes reach
// s3.multipart_threshold the buffer is one of that size, so a small object
// goes out as one PUT of it; past the threshold the multipart upload
// starts, that buffer goes out as parts (slices of it, not copies), and
// later buffers hold one part each. Parts upload on at most
// parts_in_flight worker threads; a buffer comes back for reuse when its
// last part is sent. Memory: parts_in_flight + 1 buffers per file,
// allocated once, whatever the object's size.
class S3WritableFile : public WritableFile {
 public:
  S3WritableFile(std::shared_ptr<S3Client> client, S3Location loc)
      : client_(std::move(client)),
        loc_(std::move(loc)),
        uploads_(client_->config().parts_in_flight) {
    part_size_ = client_->config().part_size;
    start_multipart_at_ =
        std::max(part_size_, client_->config().multipart_threshold);
    crc32c_ = client_->config().checksum == "crc32c";
  }
  ~S3WritableFile() override {
    (void)uploads_.Wait(0);
    if (!upload_id_.empty() && !done_) (void)Abort();
  }

  unsigned char* BorrowBuffer(size_t len) override {
    if (done_ || cur_len_ + len > Limit()) return nullptr;
    Current();
    return reinterpret_cast<unsigned char*>(cur_->data.get()) + cur_len_;
  }

  absl::Status Append(const void* data, size_t len) override {
    const char* p = static_cast<const char*>(data);
    if (cur_ && p == cur_->data.get() + cur_len_ && cur_len_ + len <= Limit()) {
      cur_len_ += len;  // generated in place: nothing to copy
      return Fail(SendIfFull());
    }
    while (len > 0) {
      Current();
      size_t take = std::min(len, Limit() - cur_len_);
      std::memcpy(cur_->data.get() + cur_len_, p, take);
      cur_len_ += take;
      p += take;
      len -= take;
      RETURN_IF_ERROR(Fail(SendIfFull()));
    }
    return absl::OkStatus();
  }

  // The object exists, complete, only after this returns OK.
  absl::Status Sync() override {
    if (done_) return absl::OkStatus();
    if (upload_id_.empty()) {  // under the threshold: one PUT
      S3Call put = MakeS3Call("PUT", loc_.bucket, loc_.key);
      put.body = cur_ ? cur_->data.get() : "";
      put.body_len = cur_len_;
      RETURN_IF_ERROR(SendBytes(*client_, put, Where(loc_)).status());
    } else {
      if (cur_len_ > 0 || parts_.empty()) {
        Current();
        RETURN_IF_ERROR(Fail(SendBuffer()));
      }
      RETURN_IF_ERROR(Fail(uploads_.Wait(0)));
      RETURN_IF_ERROR(Fail(Complete()));
    }
    cur_.reset();
    cur_len_ = 0;
    {
      std::lock_guard<std::mutex> lock(parts_mu_);
      free_.clear();
    }
    done_ = true;
    return absl::OkStatus();
  }

  absl::Status Close() override { return Sync(); }

 private:
  struct Buffer {
    std::unique_ptr<char[]> data;  // not zeroed: every byte sent is written
    size_t capacity = 0;
  };

  // How full the current buffer may get: the threshold before multipart
  // starts, a part after.
  size_t Limit() const {
    return upload_id_.empty() ? start_multipart_at_ : part_size_;
  }

  // Makes sure there is a buffer to fill: a returned one big enough, or a
  // new one of Limit() bytes.
  void Current() {
    if (cur_) return;
    cur_len_ = 0;
    {
      std::lock_guard<std::mutex> lock(parts_mu_);
      for (auto it = free_.begin(); it != free_.end(); ++it) {
        if ((*it)->capacity >= Limit()) {
          cur_ = std::move(*it);
          free_.erase(it);
          return;
        }
      }
    }
    cur_ = std::make_unique<Buffer>();
    cur_->data.reset(new char[Limit()]);
    cur_->capacity = Limit();
  }

  // A full buffer is sent: the first one, at the threshold, starts the
  // multipart upload.
  absl::Status SendIfFull() {
    if (cur_len_ < Limit()) return absl::OkStatus();
    if (upload_id_.empty()) RETURN_IF_ERROR(Create());
    return SendBuffer();
  }

  // Uploads the current buffer as parts of part_size_ (its slices), on the
  // workers; the buffer returns to free_ when the last of them is sent.
  absl::Status SendBuffer() {
    // Shared by the buffer's parts; its deleter gives the buffer back.
    std::shared_ptr<Buffer> shared(cur_.release(), [this](Buffer* b) {
      std::lock_guard<std::mutex> lock(parts_mu_);
      free_.emplace_back(b);
    });
    const size_t len = cur_len_;
    cur_len_ = 0;
    for (size_t off = 0; off < len || off == 0; off += part_size_) {
      const size_t n = std::min(part_size_, len - off);
      int number = 0;
      {
        std::lock_guard<std::mutex> lock(parts_mu_);
        parts_.emplace_back();
        number = static_cast<int>(parts_.size());
      }
      RETURN_IF_ERROR(uploads_.Start([this, number, shared, off, n] {
        auto part = UploadPart(number, shared->data.get() + off, n);
        if (!part.ok()) return part.status();
        std::lock_guard<std::mutex> lock(parts_mu_);
        parts_[static_cast<size_t>(number - 1)] = std::move(*part);
        return absl::OkStatus();
      }));
      if (len == 0) break;
    }
    return absl::OkStatus();
  }

  // On failure: let parts in flight end, then abort the multipart upload so
  // nothing is left behind.
  absl::Status Fail(absl::Status s) {
    if (!s.ok()) {
      (void)uploads_.Wait(0);
      if (!upload_id_.empty()) (void)Abort();
    }
    return s;
  }

  absl::Status Create() {
    S3Call c = MakeS3Call("POST", loc_.bucket, loc_.key, {{"uploads", ""}});
    if (crc32c_) c.headers.push_back({"x-amz-checksum-algorithm", "CRC32C"});
    ASSIGN_OR_RETURN(auto rep, client_->Do(c));
    upload_id_ = XmlValue(rep.body, "UploadId");
    if (upload_id_.empty()) {
      return absl::InternalError(absl::StrCat(
          Where(loc_), ": CreateMultipartUpload returned no UploadId"));
    }
    return absl::OkStatus();
  }

  struct Part {
    std::string etag;
    std::string crc32c;  // base64, with s3.checksum=crc32c
  };

  // Uploads one part; keeps its ETag (opaque) for the completion.
  absl::StatusOr<Part> UploadPart(int number, const char* data, size_t len) {
    S3Call c = MakeS3Call(
        "PUT", loc_.bucket, loc_.key,
        {{"partNumber", std::to_string(number)}, {"uploadId", upload_id_}});
    c.body = data;
    c.body_len = len;
    const std::string what = absl::StrCat(Where(loc_), " part ", number);
    Part part;
    ASSIGN_OR_RETURN(auto rep, SendBytes(*client_, c, what, &part.crc32c));
    part.etag = rep.headers["etag"];
    if (part.etag.empty()) {
      return absl::DataLossError(
          absl::StrCat(what, ": the server answered without an ETag"));
    }
    return part;
  }

  absl::Status Complete() {
    std::string xml =
        "<CompleteMultipartUpload "
        "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">";
    for (size_t i = 0; i < parts_.size(); ++i) {
      absl::StrAppend(&xml, "<Part><PartNumber>", i + 1, "</PartNumber><ETag>",
                      parts_[i].etag, "</ETag>");
      if (crc32c_) {
        absl::StrAppend(&xml, "<ChecksumCRC32C>", parts_[i].crc32c,
                        "</ChecksumCRC32C>");
      }
      xml += "</Part>";
    }
    xml += "</CompleteMultipartUpload>";
    S3Call c =
        MakeS3Call("POST", loc_.bucket, loc_.key, {{"uploadId", upload_id_}},
                   {{"Content-Type", "application/xml"}});
    c.body = xml.data();
    c.body_len = xml.size();
    c.error_in_200 = true;
    absl::Status s = client_->Do(c).status();
    if (!s.ok() && crc32c_ && absl::StrContains(s.message(), "MalformedXML")) {
      // Swift's s3api, for one, has no <ChecksumCRC32C> in its schema.
      return absl::Status(
          s.code(), absl::StrCat(s.message(),
                                 " (s3.checksum=crc32c: this store does not "
                                 "take part checksums on complete; set "
                                 "CKPT_S3_CHECKSUM=none)"));
    }
    return s;
  }

  absl::Status Abort() {
    S3Call c =
        MakeS3Call("DELETE", loc_.bucket, loc_.key, {{"uploadId", upload_id_}});
    auto rep = client_->Do(c);
    upload_id_.clear();
    return rep.ok() ? absl::OkStatus() : rep.status();
  }

  std::shared_ptr<S3Client> client_;
  S3Location loc_;
  size_t part_size_;
  size_t start_multipart_at_;
  std::unique_ptr<Buffer> cur_;  // being filled, up to Limit()
  size_t cur_len_ = 0;
  std::string upload_id_;
  std::mutex parts_mu_;      // guards parts_ and free_ (workers touch them)
  std::vector<Part> parts_;  // by part number - 1
  std::vector<std::unique_ptr<Buffer>> free_;  // buffers to reuse
  bool crc32c_ = false;
  bool done_ = false;
  BoundedTasks uploads_;  // last: destroyed (waited for) before the rest
};

// Ranged GETs of one object, each checked for its length.
RangeFetch S3RangeFetch(std::shared_ptr<S3Client> client, S3Location loc) {
  return [client = std::move(client), loc = std::move(loc)](
             uint64_t off, size_t len, char* dst) -> absl::Status {
    S3Call c = MakeS3Call(
        "GET", loc.bucket, loc.key, {},
        {{"Range", absl::StrCat("bytes=", off, "-", off + len - 1)}});
    c.sink = dst;
    c.sink_capacity = len;
    ASSIGN_OR_RETURN(auto rep, client->Do(c));
    if (rep.received != len) {
      return absl::DataLossError(absl::StrCat(Where(loc), ": asked for ", len,
                                              " bytes at ", off, ", got ",
                                              rep.received));
    }
    return absl::OkStatus();
  };
}

std::shared_ptr<AwsCredentialChain> ProcessCredentials() {
  static auto* chain = new std::shared_ptr<AwsCredentialChain>(
      std::make_shared<AwsCredentialChain>());
  return *chain;
}

}  // namespace

std::unique_ptr<Storage> S3Storage::Make(S3Config config) {
  return std::make_unique<S3Storage>(std::move(config));
}

S3Storage::S3Storage(S3Config config)
    : client_(std::make_shared<S3Client>(std::move(config),
                                         ProcessCredentials())) {}

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
  return std::unique_ptr<WritableFile>(new S3WritableFile(client_, loc));
}

absl::StatusOr<std::unique_ptr<ReadableFile>> S3Storage::OpenRead(
    const std::string& path, const ReadOptions&) {
  ASSIGN_OR_RETURN(auto loc, ObjectFor(path));
  S3Call head = MakeS3Call("HEAD", loc.bucket, loc.key);
  ASSIGN_OR_RETURN(auto rep, client_->Do(head));
  const std::string length =
      rep.headers.count("content-length") ? rep.headers["content-length"] : "0";
  uint64_t size = 0;
  if (!absl::SimpleAtoi(length, &size)) {
    return absl::DataLossError(
        absl::StrCat("HEAD ", path, ": the server sent Content-Length '",
                     length, "', not a byte count"));
  }
  return std::unique_ptr<ReadableFile>(new RangedReadableFile(
      size, client_->config().range_size, client_->config().ranges_in_flight,
      S3RangeFetch(client_, loc)));
}

absl::StatusOr<std::vector<std::string>> S3Storage::ListDir(
    const std::string& path) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(path));
  std::string prefix = loc.key.empty() ? "" : loc.key + "/";
  std::vector<std::string> names;
  std::string token;
  do {
    S3Call c = MakeS3Call(
        "GET", loc.bucket, "",
        {{"list-type", "2"}, {"prefix", prefix}, {"delimiter", "/"}});
    if (!token.empty()) c.query.push_back({"continuation-token", token});
    ASSIGN_OR_RETURN(auto rep, client_->Do(c));
    for (auto p : XmlValues(rep.body, "Prefix")) {
      if (p.size() <= prefix.size() || p.rfind(prefix, 0) != 0) continue;
      p = p.substr(prefix.size());
      if (!p.empty() && p.back() == '/') p.pop_back();
      names.push_back(p);
    }
    for (const auto& k : XmlValues(rep.body, "Key")) {
      if (k.size() > prefix.size() && k.rfind(prefix, 0) == 0)
        names.push_back(k.substr(prefix.size()));
    }
    token = XmlValue(rep.body, "IsTruncated") == "true"
                ? XmlValue(rep.body, "NextContinuationToken")
                : "";
  } while (!token.empty());
  if (names.empty())
    return absl::NotFoundError(absl::StrCat(path, ": nothing stored under it"));
  return names;
}

absl::StatusOr<std::vector<std::string>> S3Storage::ListKeys(
    const S3Location& dir) {
  std::string prefix = dir.key.empty() ? "" : dir.key + "/";
  std::vector<std::string> keys;
  std::string token;
  do {
    S3Call c = MakeS3Call("GET", dir.bucket, "",
                          {{"list-type", "2"}, {"prefix", prefix}});
    if (!token.empty()) c.query.push_back({"continuation-token", token});
    ASSIGN_OR_RETURN(auto rep, client_->Do(c));
    for (const auto& k : XmlValues(rep.body, "Key")) keys.push_back(k);
    token = XmlValue(rep.body, "IsTruncated") == "true"
                ? XmlValue(rep.body, "NextContinuationToken")
                : "";
  } while (!token.empty());
  return keys;
}

absl::StatusOr<bool> S3Storage::Exists(const std::string& path) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(path));
  auto rep = client_->Do(MakeS3Call("HEAD", loc.bucket, loc.key));
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
  for (const auto& k : keys)
    RETURN_IF_ERROR(DeleteKey(*client_, loc.bucket, k));
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
  std::string key_marker, id_marker;
  do {
    S3Call c =
        MakeS3Call("GET", bucket, "", {{"uploads", ""}, {"prefix", prefix}});
    if (!key_marker.empty()) {
      c.query.push_back({"key-marker", key_marker});
      c.query.push_back({"upload-id-marker", id_marker});
    }
    ASSIGN_OR_RETURN(auto rep, client_->Do(c));
    for (const auto& upload : XmlValues(rep.body, "Upload")) {
      S3Upload u{XmlValue(upload, "Key"), XmlValue(upload, "UploadId"),
                 XmlValue(upload, "Initiated")};
      if (!u.key.empty() && !u.upload_id.empty()) out.push_back(std::move(u));
    }
    const bool truncated = XmlValue(rep.body, "IsTruncated") == "true";
    key_marker = truncated ? XmlValue(rep.body, "NextKeyMarker") : "";
    id_marker = truncated ? XmlValue(rep.body, "NextUploadIdMarker") : "";
  } while (!key_marker.empty());
  return out;
}

absl::Status S3Storage::AbortUpload(const std::string& bucket,
                                    const S3Upload& upload) {
  auto del = client_->Do(MakeS3Call("DELETE", bucket, upload.key,
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
  const std::string mode = client_->config().claim;
  if (mode == "listing") return false;
  S3Call put =
      MakeS3Call("PUT", claim.bucket, claim.key, {}, {{"If-None-Match", "*"}});
  put.body = owner.data();
  put.body_len = owner.size();
  auto rep = SendBytes(*client_, put, Where(claim));
  if (rep.ok() && mode == "auto") {
    // Some stores accept the header and ignore it: then two runs would
    // both "win". The key exists now, so the same request must fail; if it
    // does not, this store has no conditional PUT: claim by listing.
    auto again = SendBytes(*client_, put, Where(claim));
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
  if (absl::IsUnimplemented(rep.status()) && mode == "auto") {
    return false;  // this store has none: claim by listing
  }
  if (absl::IsAlreadyExists(rep.status()) || absl::IsAborted(rep.status())) {
    // Ours after all when a retried PUT found its own first attempt.
    auto held = client_->Do(MakeS3Call("GET", claim.bucket, claim.key));
    if (held.ok() && held->body == owner) return true;
    return absl::AlreadyExistsError(
        absl::StrCat(Where(claim), ": another run claimed this step first"));
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
    RETURN_IF_ERROR(WriteAtomic(Where(claim), owner));
  }
  // Either way nothing else may be there (an older step's files, or a claim
  // of the other kind).
  ASSIGN_OR_RETURN(auto keys, ListKeys(loc));
  for (const auto& k : keys) {
    if (k == claim.key) continue;
    RETURN_IF_ERROR(DeleteKey(*client_, claim.bucket, claim.key));
    return absl::AlreadyExistsError(
        absl::StrCat(Where(loc), " holds s3://", loc.bucket, "/", k,
                     " (another run's step, or one an earlier run left)"));
  }
  return claim.key.substr(loc.key.empty() ? 0 : loc.key.size() + 1);
}

absl::Status S3Storage::WriteAtomic(const std::string& path,
                                    const std::string& data) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(path));
  S3Call put = MakeS3Call("PUT", loc.bucket, loc.key);
  put.body = data.data();
  put.body_len = data.size();
  return SendBytes(*client_, put, Where(loc)).status();
}

absl::StatusOr<std::string> S3Storage::ReadSmall(const std::string& path) {
  ASSIGN_OR_RETURN(auto loc, ParseS3Uri(path));
  ASSIGN_OR_RETURN(auto rep,
                   client_->Do(MakeS3Call("GET", loc.bucket, loc.key)));
  return rep.body;
}

absl::StatusOr<CacheReport> S3Storage::PrepareColdRead(
    const std::vector<std::string>&, const std::string&) {
  return ObjectStoreCacheReport();
}

FilesystemInfo S3Storage::Filesystem(const std::string& path) {
  auto loc = ParseS3Uri(path);
  return {"s3", client_->Endpoint(),
          absl::StrCat("bucket=", loc.ok() ? loc->bucket : "?",
                       ",region=", client_->config().region,
                       ",part_size=", client_->config().part_size,
                       ",payload=", client_->config().payload_signing,
                       ",checksum=", client_->config().checksum)};
}

}  // namespace ckpt
