#include "node/storage/gcs_upload.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/checksum.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"
#include "node/storage/http_retry.h"
#include "node/storage/object_io.h"

namespace ckpt {
namespace {

constexpr size_t kComposeMax = 32;  // sources per compose request

// The stored object (a JSON API object resource) must hold what was sent.
absl::Status CheckStored(const HttpResponse& rep, const GcsObject& obj,
                         uint64_t size, uint32_t crc) {
  nlohmann::json j = nlohmann::json::parse(rep.body, nullptr, false);
  if (!j.is_object()) {
    return absl::DataLossError(absl::StrCat(
        GsUri(obj), ": the upload's answer is not an object resource"));
  }
  const std::string want = Crc32cToBase64(crc);
  const std::string got = JsonString(j, "crc32c");
  uint64_t stored = 0;
  if (!absl::SimpleAtoi(JsonString(j, "size"), &stored) || stored != size ||
      got != want) {
    return absl::DataLossError(
        absl::StrCat(GsUri(obj), ": stored ", JsonString(j, "size"),
                     " bytes with crc32c ", got.empty() ? "(none)" : got,
                     ", sent ", size, " bytes with crc32c ", want));
  }
  return absl::OkStatus();
}

std::string Boundary() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  char buf[40];
  std::snprintf(buf, sizeof(buf), "ckptbench_%016llx",
                static_cast<unsigned long long>(rng()));
  return buf;
}

// End of the committed range in a 308's "Range: bytes=0-L" (L + 1), or 0.
uint64_t CommittedOf(const HttpResponse& rep) {
  auto it = rep.headers.find("range");
  if (it == rep.headers.end()) return 0;
  size_t dash = it->second.rfind('-');
  uint64_t last = 0;
  if (dash == std::string::npos ||
      !absl::SimpleAtoi(it->second.substr(dash + 1), &last))
    return 0;
  return last + 1;
}

// Buffers up to max(gcs.single_threshold, gcs.chunk_size) before choosing:
// smaller objects go in one request at Sync(); larger ones stream as a
// resumable session or composite parts, one chunk_size chunk at a time.
// The buffer starts at kFirstBuffer (or the threshold, if smaller) and
// doubles as it fills, so a small object holds little whatever the
// threshold. Memory: that buffer (the smaller ones it grew from given
// back), and a chunk per composite part in flight, all from the client's
// pool (reused across its objects).
class GcsWritableFile : public WritableFile {
 public:
  static constexpr uint64_t kFirstBuffer = uint64_t{8} << 20;

  GcsWritableFile(std::shared_ptr<GcsClient> client, GcsObject obj)
      : client_(std::move(client)),
        obj_(std::move(obj)),
        crc_(NewChecksummer(ChecksumKind::kCrc32c)),
        uploads_(client_->config().parts_in_flight) {
    chunk_ = client_->config().chunk_size;
    start_at_ = std::max<uint64_t>(chunk_, client_->config().single_threshold);
  }
  ~GcsWritableFile() override {
    (void)uploads_.Wait(0);
    if (!done_) Abandon();
  }

  absl::Status Append(const void* data, size_t len) override {
    crc_->Update(data, len);
    total_ += len;
    const char* p = static_cast<const char*>(data);
    while (len > 0) {
      if (!buf_) {
        buf_ = client_->buffers().Take(
            static_cast<size_t>(std::min<uint64_t>(start_at_, kFirstBuffer)));
      } else if (buf_len_ == buf_.capacity()) {
        Grow();
      }
      const size_t take = std::min(len, buf_.capacity() - buf_len_);
      std::memcpy(buf_.data() + buf_len_, p, take);
      buf_len_ += take;
      p += take;
      len -= take;
      RETURN_IF_ERROR(SendWholeChunks());
    }
    return absl::OkStatus();
  }

  // The object exists, complete and checked, only after this returns OK.
  absl::Status Sync() override {
    if (done_) return absl::OkStatus();
    const uint32_t crc = static_cast<uint32_t>(crc_->Value());
    switch (mode_) {
      case Mode::kUndecided:
        RETURN_IF_ERROR(
            UploadInOneRequest(*client_, obj_, buf_.data(), buf_len_, crc));
        break;
      case Mode::kResumable:
        RETURN_IF_ERROR(Fail(SendChunk(buf_.data(), buf_len_, true)));
        break;
      case Mode::kComposite:
        if (buf_len_ > 0) {
          const size_t len = std::exchange(buf_len_, 0);
          RETURN_IF_ERROR(Fail(StartPart(std::move(buf_), len)));
        }
        RETURN_IF_ERROR(Fail(uploads_.Wait(0)));
        RETURN_IF_ERROR(Fail(Compose()));
        break;
    }
    if (mode_ != Mode::kUndecided) {
      RETURN_IF_ERROR(CheckStored(final_, obj_, total_, crc));
    }
    DeleteParts();
    buf_ = BufferPool::Lease();
    buf_len_ = 0;
    done_ = true;
    return absl::OkStatus();
  }

  absl::Status Close() override { return Sync(); }

 private:
  enum class Mode { kUndecided, kResumable, kComposite };

  absl::Status Fail(absl::Status s) {
    if (!s.ok()) {
      (void)uploads_.Wait(0);
      Abandon();
      done_ = true;
    }
    return s;
  }

  // Cancels a session (the server answers 499) and deletes parts.
  void Abandon() {
    if (!session_.empty()) {
      GcsCall c;
      c.method = HttpMethod::kDelete;
      c.path = session_;
      c.retry = false;
      c.also_ok = {499};
      (void)client_->Do(c);
      session_.clear();
    }
    DeleteParts();
  }

  absl::Status StartSession() {
    nlohmann::json meta = {{"name", obj_.name}};
    std::string body = meta.dump();
    GcsCall c;
    c.method = HttpMethod::kPost;
    c.path = GcsClient::UploadPath(obj_.bucket);
    c.query = {{"uploadType", "resumable"}, {"name", obj_.name}};
    c.headers = {{"Content-Type", "application/json; charset=UTF-8"}};
    c.body = body.data();
    c.body_len = body.size();
    ASSIGN_OR_RETURN(auto rep, client_->Do(c));
    auto it = rep.headers.find("location");
    if (it == rep.headers.end() || it->second.empty()) {
      return absl::InternalError(absl::StrCat(
          GsUri(obj_), ": the resumable upload start returned no Location"));
    }
    session_ = it->second;
    return absl::OkStatus();
  }

  // Sends data[0, len) starting at committed_; a chunk that fails (reset,
  // 408, 429, 5xx) is followed by a status query, and sending resumes from
  // the offset the server committed. `last` sends the total and the
  // CRC32C of the whole object, which the server checks.
  absl::Status SendChunk(const char* data, size_t len, bool last) {
    const uint64_t start = committed_;
    const std::string total = last ? std::to_string(total_) : "*";
    int failures = 0;
    while (true) {
      const uint64_t from = committed_ - start;
      GcsCall c;
      c.method = HttpMethod::kPut;
      c.path = session_;
      c.retry = false;
      c.also_ok = {308};
      c.body = data + from;
      c.body_len = len - from;
      c.headers = {{"Content-Range",
                    c.body_len == 0 ? absl::StrCat("bytes */", total)
                                    : absl::StrCat("bytes ", committed_, "-",
                                                   committed_ + c.body_len - 1,
                                                   "/", total)}};
      if (last) {
        c.headers.push_back(
            {"X-Goog-Hash",
             absl::StrCat("crc32c=", Crc32cToBase64(static_cast<uint32_t>(
                                         crc_->Value())))});
      }
      auto rep = client_->Do(c);
      if (!rep.ok() && absl::IsUnavailable(rep.status())) {
        if (++failures >= client_->config().max_attempts) return rep.status();
        CountRetry(client_->counters());
        SleepBeforeRetry(failures, &client_->counters());
        rep = QueryStatus(last);
      }
      if (!rep.ok()) {
        if (absl::IsNotFound(rep.status())) {
          return absl::NotFoundError(
              absl::StrCat(GsUri(obj_), ": the resumable session is gone (",
                           rep.status().message(),
                           "); its bytes cannot be resent, the upload failed"));
        }
        return rep.status();
      }
      if (rep->status != 308) {  // 200/201: the object is complete
        session_.clear();
        final_ = std::move(*rep);
        return absl::OkStatus();
      }
      const uint64_t got = CommittedOf(*rep);
      if (got < start || got > start + len) {
        return absl::DataLossError(
            absl::StrCat(GsUri(obj_), ": the server committed ", got,
                         " bytes, outside the chunk being sent (", start, "-",
                         start + len, "); the upload cannot resume"));
      }
      if (got == committed_ && ++failures >= client_->config().max_attempts) {
        return absl::DataLossError(
            absl::StrCat(GsUri(obj_), ": the server answers 308 but stays at ",
                         got, " bytes committed"));
      }
      committed_ = got;
      if (committed_ == start + len && !last) return absl::OkStatus();
    }
  }

  // An empty PUT asking how much the session holds (retried as usual).
  absl::StatusOr<HttpResponse> QueryStatus(bool last) {
    GcsCall q;
    q.method = HttpMethod::kPut;
    q.path = session_;
    q.also_ok = {308};
    q.headers = {
        {"Content-Range", absl::StrCat("bytes */", last ? std::to_string(total_)
                                                        : std::string("*"))}};
    return client_->Do(q);
  }

  // A full buffer below start_at_ (nothing sent yet: the kind is not
  // chosen) is replaced by one twice its size, up to start_at_.
  void Grow() {
    BufferPool::Lease bigger = client_->buffers().Take(static_cast<size_t>(
        std::min<uint64_t>(start_at_, 2 * uint64_t{buf_.capacity()})));
    std::memcpy(bigger.data(), buf_.data(), buf_len_);
    buf_ = std::move(bigger);
  }

  // Once the buffer reaches start_at_ the upload's kind is chosen; then
  // each whole chunk in it goes (a resumable session's next chunk, or a
  // composite part), and what is left moves to its front.
  absl::Status SendWholeChunks() {
    if (mode_ == Mode::kUndecided && buf_len_ >= start_at_) {
      mode_ = client_->config().upload == GcsUpload::kComposite
                  ? Mode::kComposite
                  : Mode::kResumable;
      if (mode_ == Mode::kResumable) RETURN_IF_ERROR(Fail(StartSession()));
    }
    if (mode_ == Mode::kUndecided) return absl::OkStatus();
    size_t at = 0;
    while (buf_len_ - at >= chunk_) {
      if (mode_ == Mode::kResumable) {
        RETURN_IF_ERROR(Fail(SendChunk(buf_.data() + at, chunk_, false)));
      } else {
        BufferPool::Lease part =
            client_->buffers().Take(static_cast<size_t>(chunk_));
        std::memcpy(part.data(), buf_.data() + at, chunk_);
        RETURN_IF_ERROR(Fail(StartPart(std::move(part), chunk_)));
      }
      at += chunk_;
    }
    if (at == 0) return absl::OkStatus();  // most appends: nothing sent
    std::memmove(buf_.data(), buf_.data() + at, buf_len_ - at);
    buf_len_ -= at;
    return absl::OkStatus();
  }

  // Uploads data[0, len) as the next composite part, on a worker; the
  // buffer goes back to the pool when it is sent.
  absl::Status StartPart(BufferPool::Lease data, size_t len) {
    GcsObject part{
        obj_.bucket,
        CompositePartName(obj_.name, static_cast<int>(parts_.size()))};
    parts_.push_back(part.name);
    auto d = std::make_shared<BufferPool::Lease>(std::move(data));
    return uploads_.Start([this, part, d, len] {
      return UploadInOneRequest(*client_, part, d->data(), len);
    });
  }

  // Composes the parts into the object 32 at a time: the first request
  // takes up to 32 parts, each later one the object so far and 31 more.
  absl::Status Compose() {
    size_t next = 0;
    bool have_dest = false;
    while (next < parts_.size()) {
      nlohmann::json sources = nlohmann::json::array();
      if (have_dest) sources.push_back({{"name", obj_.name}});
      while (next < parts_.size() && sources.size() < kComposeMax)
        sources.push_back({{"name", parts_[next++]}});
      nlohmann::json req = {
          {"sourceObjects", sources},
          {"destination", {{"contentType", "application/octet-stream"}}}};
      std::string body = req.dump();
      GcsCall c;
      c.method = HttpMethod::kPost;
      c.path = GcsClient::ObjectPath(obj_) + "/compose";
      c.headers = {{"Content-Type", "application/json; charset=UTF-8"}};
      c.body = body.data();
      c.body_len = body.size();
      ASSIGN_OR_RETURN(final_, client_->Do(c));
      have_dest = true;
    }
    return absl::OkStatus();
  }

  void DeleteParts() {
    for (const auto& p : parts_) (void)DeleteObject(*client_, {obj_.bucket, p});
    parts_.clear();
  }

  std::shared_ptr<GcsClient> client_;
  GcsObject obj_;
  std::unique_ptr<Checksummer> crc_;  // of every byte appended
  uint64_t chunk_ = 0;
  uint64_t start_at_ = 0;
  uint64_t total_ = 0;      // bytes appended
  uint64_t committed_ = 0;  // resumable: bytes the server holds
  Mode mode_ = Mode::kUndecided;
  BufferPool::Lease buf_;  // start_at_ bytes at least, from the client's pool
  size_t buf_len_ = 0;     // bytes in it not yet sent
  std::string session_;    // resumable session URI (a credential: not logged)
  std::vector<std::string> parts_;
  HttpResponse final_;  // the answer that created the object
  bool done_ = false;
  TalliedTasks uploads_;  // last: destroyed (waited for) before the rest
};

}  // namespace

std::string CompositePartName(const std::string& name, int k) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%05d", k);
  return absl::StrCat(name, ".parts/", buf);
}

absl::Status UploadInOneRequest(GcsClient& client, const GcsObject& obj,
                                const char* data, size_t len,
                                std::optional<uint32_t> crc,
                                const HeaderList& preconditions) {
  if (!crc) crc = Crc32c(data, len);
  nlohmann::json meta = {{"name", obj.name}, {"crc32c", Crc32cToBase64(*crc)}};
  const std::string b = Boundary();
  const std::string head = absl::StrCat(
      "--", b, "\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n",
      meta.dump(), "\r\n--", b,
      "\r\nContent-Type: application/octet-stream\r\n\r\n");
  const std::string tail = absl::StrCat("\r\n--", b, "--\r\n");
  GcsCall c;
  c.method = HttpMethod::kPost;
  c.path = GcsClient::UploadPath(obj.bucket);
  c.query = {{"uploadType", "multipart"}};
  c.query.insert(c.query.end(), preconditions.begin(), preconditions.end());
  c.headers = {
      {"Content-Type", absl::StrCat("multipart/related; boundary=", b)}};
  c.body_head = head;
  c.body = data;
  c.body_len = len;
  c.body_tail = tail;
  ASSIGN_OR_RETURN(auto rep, client.Do(c));
  return CheckStored(rep, obj, len, *crc);
}

std::unique_ptr<WritableFile> NewGcsWritableFile(
    std::shared_ptr<GcsClient> client, GcsObject obj) {
  return std::make_unique<GcsWritableFile>(std::move(client), std::move(obj));
}

}  // namespace ckpt
