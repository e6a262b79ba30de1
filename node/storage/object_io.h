// Pieces shared by the object-store backends (s3, gs): a read-ahead reader
// over ranged GETs and a bounded set of concurrent uploads.
#ifndef CKPTBENCH_NODE_STORAGE_OBJECT_IO_H_
#define CKPTBENCH_NODE_STORAGE_OBJECT_IO_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "node/storage/storage.h"

namespace ckpt {

// "<scheme>bucket/key..." split into bucket and key (no leading or
// trailing '/'); errors name the URI and what was expected.
struct BucketKey {
  std::string bucket;
  std::string key;
};
absl::StatusOr<BucketKey> SplitBucketUri(const std::string& uri,
                                         const std::string& scheme);

// What a load's cache eviction is on an object store: nothing to evict.
CacheReport ObjectStoreCacheReport();

// Fetches `len` bytes at `offset` of the object into `dst`; the result must
// be exactly len bytes.
using RangeFetch =
    std::function<absl::Status(uint64_t offset, size_t len, char* dst)>;

// Reads a sequential stream ahead with up to `depth` fetches of
// `range_size` bytes each on threads of their own, and copies into the
// caller's buffer; a read that does not start where the last one ended
// drops the read-ahead. One reader thread at a time.
class RangedReadableFile : public ReadableFile {
 public:
  RangedReadableFile(uint64_t size, uint64_t range_size, int depth,
                     RangeFetch fetch);
  ~RangedReadableFile() override { Drop(); }
  uint64_t Size() const override { return size_; }
  absl::StatusOr<size_t> Read(uint64_t offset, void* buf, size_t len) override;
  absl::Status Close() override {
    Drop();
    return absl::OkStatus();
  }

 private:
  struct Range {
    uint64_t offset;
    size_t size;
    std::unique_ptr<char[]> data;  // filled by the fetch, not zeroed first
    std::future<absl::Status> result;
    bool ready = false;
  };
  void Fill();
  void Drop();

  uint64_t size_;
  uint64_t range_;
  size_t depth_;
  RangeFetch fetch_;
  uint64_t next_ = 0;       // where the last read ended
  uint64_t queued_to_ = 0;  // end of the last range requested
  std::deque<Range> ranges_;
};

// Runs tasks on threads of their own, at most `max_in_flight` at a time.
// The owner calls Wait(0) before the state the tasks touch goes away (the
// destructor does too). One owner thread.
class BoundedTasks {
 public:
  explicit BoundedTasks(int max_in_flight);
  ~BoundedTasks() { (void)Wait(0); }
  // Waits for a free slot (returning the error of a task that ended, if
  // any), then starts `task`.
  absl::Status Start(std::function<absl::Status()> task);
  // Waits until at most `keep` tasks are running; the first error wins.
  absl::Status Wait(size_t keep);

 private:
  size_t max_;
  std::deque<std::future<absl::Status>> running_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_OBJECT_IO_H_
