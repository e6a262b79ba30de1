#include "node/storage/s3_upload.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "absl/strings/match.h"
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

// Fills one buffer at a time, from Append's bytes or, with BorrowBuffer,
// by the caller generating straight into it. Until the bytes reach
// s3.multipart_threshold the buffer is one of that size, so a small object
// goes out as one PUT of it; past the threshold the multipart upload
// starts, that buffer goes out as parts (slices of it, not copies), and
// later buffers hold one part each. Parts upload on at most
// parts_in_flight worker threads; a buffer goes back to the client's pool
// when its last part is sent, and the next is taken from it. Memory:
// parts_in_flight + 1 buffers per file at most, whatever the object's
// size, reused across the client's objects (BufferPool).
class S3WritableFile : public WritableFile {
 public:
  S3WritableFile(std::shared_ptr<S3Client> client, S3Location loc)
      : client_(std::move(client)),
        loc_(std::move(loc)),
        uploads_(client_->config().parts_in_flight) {
    part_size_ = client_->config().part_size;
    start_multipart_at_ =
        std::max(part_size_, client_->config().multipart_threshold);
    crc32c_ = client_->config().checksum == S3Checksum::kCrc32c;
  }
  ~S3WritableFile() override {
    (void)uploads_.Wait(0);
    if (!upload_id_.empty() && !done_) (void)Abort();
  }

  unsigned char* BorrowBuffer(size_t len) override {
    if (done_ || cur_len_ + len > Limit()) return nullptr;
    Current();
    return reinterpret_cast<unsigned char*>(cur_.data()) + cur_len_;
  }

  absl::Status Append(const void* data, size_t len) override {
    const char* p = static_cast<const char*>(data);
    if (cur_ && p == cur_.data() + cur_len_ && cur_len_ + len <= Limit()) {
      cur_len_ += len;  // generated in place: nothing to copy
      return Fail(SendIfFull());
    }
    while (len > 0) {
      Current();
      size_t take = std::min(len, Limit() - cur_len_);
      std::memcpy(cur_.data() + cur_len_, p, take);
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
      S3Call put = MakeS3Call(HttpMethod::kPut, loc_.bucket, loc_.key);
      put.body = cur_ ? cur_.data() : "";
      put.body_len = cur_len_;
      RETURN_IF_ERROR(SendS3Bytes(*client_, put, S3Where(loc_)).status());
    } else {
      if (cur_len_ > 0 || parts_.empty()) {
        Current();
        RETURN_IF_ERROR(Fail(SendBuffer()));
      }
      RETURN_IF_ERROR(Fail(uploads_.Wait(0)));
      RETURN_IF_ERROR(Fail(Complete()));
    }
    cur_ = BufferPool::Lease();
    cur_len_ = 0;
    done_ = true;
    return absl::OkStatus();
  }

  absl::Status Close() override { return Sync(); }

 private:
  // How full the current buffer may get: the threshold before multipart
  // starts, a part after.
  size_t Limit() const {
    return upload_id_.empty() ? start_multipart_at_ : part_size_;
  }

  // Makes sure there is a buffer to fill, of Limit() bytes at least (not
  // zeroed: every byte sent is written).
  void Current() {
    if (cur_) return;
    cur_len_ = 0;
    cur_ = client_->buffers().Take(Limit());
  }

  // A full buffer is sent: the first one, at the threshold, starts the
  // multipart upload.
  absl::Status SendIfFull() {
    if (cur_len_ < Limit()) return absl::OkStatus();
    if (upload_id_.empty()) RETURN_IF_ERROR(Create());
    return SendBuffer();
  }

  // Uploads the current buffer as parts of part_size_ (its slices), on the
  // workers; the buffer returns to the pool when the last of them is sent.
  absl::Status SendBuffer() {
    // Shared by the buffer's parts; the last one gives it back.
    auto shared = std::make_shared<BufferPool::Lease>(std::move(cur_));
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
        auto part = UploadPart(number, shared->data() + off, n);
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
    S3Call c =
        MakeS3Call(HttpMethod::kPost, loc_.bucket, loc_.key, {{"uploads", ""}});
    if (crc32c_) c.headers.push_back({"x-amz-checksum-algorithm", "CRC32C"});
    ASSIGN_OR_RETURN(auto rep, client_->Do(c));
    upload_id_ = XmlValue(rep.body, "UploadId");
    if (upload_id_.empty()) {
      return absl::InternalError(absl::StrCat(
          S3Where(loc_), ": CreateMultipartUpload returned no UploadId"));
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
        HttpMethod::kPut, loc_.bucket, loc_.key,
        {{"partNumber", std::to_string(number)}, {"uploadId", upload_id_}});
    c.body = data;
    c.body_len = len;
    const std::string what = absl::StrCat(S3Where(loc_), " part ", number);
    Part part;
    ASSIGN_OR_RETURN(auto rep, SendS3Bytes(*client_, c, what, &part.crc32c));
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
    S3Call c = MakeS3Call(HttpMethod::kPost, loc_.bucket, loc_.key,
                          {{"uploadId", upload_id_}},
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
    S3Call c = MakeS3Call(HttpMethod::kDelete, loc_.bucket, loc_.key,
                          {{"uploadId", upload_id_}});
    auto rep = client_->Do(c);
    upload_id_.clear();
    return rep.ok() ? absl::OkStatus() : rep.status();
  }

  std::shared_ptr<S3Client> client_;
  S3Location loc_;
  size_t part_size_;
  size_t start_multipart_at_;
  BufferPool::Lease cur_;  // being filled, up to Limit()
  size_t cur_len_ = 0;
  std::string upload_id_;
  std::mutex parts_mu_;      // guards parts_ (workers fill it)
  std::vector<Part> parts_;  // by part number - 1
  bool crc32c_ = false;
  bool done_ = false;
  TalliedTasks uploads_;  // last: destroyed (waited for) before the rest
};

}  // namespace

// Sends a call that uploads bytes (PUT or part). With s3.checksum=md5 a
// Content-MD5 goes along, which the server checks (400 BadDigest). With
// s3.checksum=crc32c their CRC32C goes along (into *crc when given), and a
// server that echoes one must echo ours: anything else means it stored
// different bytes (S3 itself answers 400 BadDigest first). The ETag is
// opaque (not an MD5 on SSE-KMS buckets, for one) and never compared.
// `what` names the upload in errors.
absl::StatusOr<HttpResponse> SendS3Bytes(S3Client& client, S3Call call,
                                         const std::string& what,
                                         std::string* crc) {
  if (client.config().checksum == S3Checksum::kMd5) {
    call.headers.push_back(
        {"Content-MD5", Md5Base64(call.body, call.body_len)});
    return client.Do(call);
  }
  if (client.config().checksum != S3Checksum::kCrc32c) return client.Do(call);
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

std::string S3Where(const S3Location& loc) {
  return absl::StrCat("s3://", loc.bucket, "/", loc.key);
}

std::unique_ptr<WritableFile> NewS3Upload(std::shared_ptr<S3Client> client,
                                          S3Location loc) {
  return std::make_unique<S3WritableFile>(std::move(client), std::move(loc));
}

}  // namespace ckpt
