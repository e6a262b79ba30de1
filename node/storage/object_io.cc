#include "node/storage/object_io.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace ckpt {

absl::StatusOr<BucketKey> SplitBucketUri(const std::string& uri,
                                         const std::string& scheme) {
  if (!absl::StartsWith(uri, scheme)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", uri, "': expected ", scheme, "bucket/prefix"));
  }
  std::string rest = uri.substr(scheme.size());
  size_t slash = rest.find('/');
  BucketKey out;
  out.bucket = rest.substr(0, slash);
  if (slash != std::string::npos) out.key = rest.substr(slash + 1);
  while (!out.key.empty() && out.key.back() == '/') out.key.pop_back();
  if (out.bucket.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", uri, "': no bucket name"));
  }
  return out;
}

CacheReport ObjectStoreCacheReport() {
  CacheReport r;
  r.method = "none";
  r.note = "object storage: every read goes to the server";
  return r;
}

RangedReadableFile::RangedReadableFile(uint64_t size, uint64_t range_size,
                                       int depth, RangeFetch fetch)
    : size_(size),
      range_(std::max<uint64_t>(1, range_size)),
      depth_(static_cast<size_t>(std::max(1, depth))),
      fetch_(std::move(fetch)) {}

absl::StatusOr<size_t> RangedReadableFile::Read(uint64_t offset, void* buf,
                                                size_t len) {
  if (offset >= size_ || len == 0) return 0;
  size_t n = static_cast<size_t>(std::min<uint64_t>(len, size_ - offset));
  if (offset != next_) {
    Drop();
    queued_to_ = offset;
  }
  char* out = static_cast<char*>(buf);
  size_t done = 0;
  while (done < n) {
    Fill();
    Range& r = ranges_.front();
    if (!r.ready) {
      absl::Status s = r.result.get();
      r.ready = true;
      if (!s.ok()) {
        Drop();
        next_ = UINT64_MAX;
        return s;
      }
    }
    uint64_t at = offset + done;
    size_t skip = static_cast<size_t>(at - r.offset);
    size_t take = std::min(n - done, r.size - skip);
    std::memcpy(out + done, r.data.get() + skip, take);
    done += take;
    if (skip + take == r.size) ranges_.pop_front();
  }
  next_ = offset + n;
  return n;
}

void RangedReadableFile::Fill() {
  while (ranges_.size() < depth_ && queued_to_ < size_) {
    uint64_t off = queued_to_;
    size_t len = static_cast<size_t>(std::min<uint64_t>(range_, size_ - off));
    ranges_.push_back(
        Range{off, len, std::unique_ptr<char[]>(new char[len]), {}, false});
    char* dst = ranges_.back().data.get();
    ranges_.back().result =
        std::async(std::launch::async,
                   [this, off, len, dst] { return fetch_(off, len, dst); });
    queued_to_ += len;
  }
}

void RangedReadableFile::Drop() {
  for (auto& r : ranges_) {
    if (!r.ready) r.result.wait();
  }
  ranges_.clear();
}

BoundedTasks::BoundedTasks(int max_in_flight)
    : max_(static_cast<size_t>(std::max(1, max_in_flight))) {}

absl::Status BoundedTasks::Start(std::function<absl::Status()> task) {
  absl::Status s = Wait(max_ - 1);
  if (!s.ok()) return s;
  running_.push_back(std::async(std::launch::async, std::move(task)));
  return absl::OkStatus();
}

absl::Status BoundedTasks::Wait(size_t keep) {
  absl::Status first;
  while (running_.size() > keep) {
    absl::Status s = running_.front().get();
    running_.pop_front();
    if (first.ok()) first = s;
  }
  return first;
}

}  // namespace ckpt
