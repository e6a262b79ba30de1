// Pieces shared by the object-store backends (s3, gs): a read-ahead reader
// over ranged GETs and a bounded set of concurrent uploads.
#ifndef CKPTBENCH_NODE_STORAGE_OBJECT_IO_H_
#define CKPTBENCH_NODE_STORAGE_OBJECT_IO_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/bounded_tasks.h"
#include "node/storage/buffer_pool.h"
#include "node/storage/http_client.h"
#include "node/storage/io_tally.h"
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

// The error of an object whose size is not the one its reader was given
// (ReadOptions::size).
absl::Status SizeMismatch(const std::string& uri, uint64_t actual,
                          uint64_t expected, const std::string& size_from);
// With the object's size known (`want`, no HEAD sent), what a ranged GET of
// [off, off + len) must have answered: a 206 whose Content-Range is exactly
// "bytes off-(off+len-1)/want", or a 200 of the whole object (off 0, len
// want). Anything else is DataLoss naming `uri`: another size, another
// range, no size at all ("/*", absent, malformed).
absl::Status CheckRangedAnswer(const HttpResponse& rep, uint64_t off,
                               size_t len, uint64_t want,
                               const std::string& uri,
                               const std::string& size_from);

// Fetches `len` bytes at `offset` of the object into `dst`; the result must
// be exactly len bytes.
using RangeFetch =
    std::function<absl::Status(uint64_t offset, size_t len, char* dst)>;

// Reads a sequential stream ahead with up to `depth` fetches of
// `range_size` bytes each in flight, and copies into the caller's buffer;
// a read that does not start where the last one ended drops the
// read-ahead. The fetches run on `depth` threads started with the first
// read and kept for the file's life, into `depth` buffers taken once from
// `buffers` (a backend's pool, shared by its files: a file's are then
// pages already faulted in) and reused: no thread or allocation per range. With
// `extents` (sorted, disjoint [begin, end) byte ranges: what the caller will
// read), the read-ahead fetches only inside them, going on from the end of one
// to the start of the next, so a sparse reader fetches no byte it does not
// read. The fetches count in the IoTally current where the file was made. One
// reader thread at a time.
class RangedReadableFile : public ReadableFile {
 public:
  RangedReadableFile(uint64_t size, uint64_t range_size, int depth,
                     RangeFetch fetch,
                     std::vector<std::pair<uint64_t, uint64_t>> extents = {},
                     BufferPool buffers = BufferPool());
  ~RangedReadableFile() override;
  uint64_t Size() const override { return size_; }
  absl::StatusOr<size_t> Read(uint64_t offset, void* buf, size_t len) override;
  absl::Status Close() override {
    Drop();
    return absl::OkStatus();
  }

 private:
  struct Slot {
    uint64_t offset = 0;
    size_t size = 0;
    BufferPool::Lease data;  // range_size bytes at least, not zeroed
    bool done = false;
    absl::Status status;
  };
  void Fill();  // with mu_ held
  absl::StatusOr<size_t> FetchWholeRanges(uint64_t offset, char* out, size_t n,
                                          std::unique_lock<std::mutex>& lock);
  void Drop();
  void Work();
  // Where the read-ahead goes on from `at`, and how far it may fetch:
  // [at, size) without extents, else inside the extent holding at or the
  // next one ({size, size} past the last).
  std::pair<uint64_t, uint64_t> NextSpan(uint64_t at) const;

  const uint64_t size_;
  const uint64_t range_;
  const size_t depth_;
  RangeFetch fetch_;
  const std::vector<std::pair<uint64_t, uint64_t>> extents_;
  BufferPool buffers_;
  IoTally* const tally_;    // its creator's: the fetches count there
  uint64_t next_ = 0;       // where the last read ended
  uint64_t queued_to_ = 0;  // end of the last range requested
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;
  std::deque<size_t> order_;  // slots in flight or ready, by offset
  std::deque<size_t> jobs_;   // slots waiting for a worker
  std::vector<size_t> free_;
  size_t fetching_ = 0;  // slots a worker is filling now
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

// BoundedTasks (common/bounded_tasks.h) whose tasks run with the IoTally
// that was current where Start queued them, so an upload's part requests
// count for its file. One owner thread.
class TalliedTasks {
 public:
  explicit TalliedTasks(int max_in_flight) : tasks_(max_in_flight) {}
  absl::Status Start(std::function<absl::Status()> task) {
    return tasks_.Start([tally = CurrentIoTally(), task = std::move(task)] {
      ScopedIoTally scope(tally);
      return task();
    });
  }
  absl::Status Wait(size_t keep) { return tasks_.Wait(keep); }
  size_t threads() const { return tasks_.threads(); }

 private:
  BoundedTasks tasks_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_OBJECT_IO_H_
