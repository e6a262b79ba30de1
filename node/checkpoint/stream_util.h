// What SaveStream and LoadStream (node/checkpoint/save_stream.h,
// node/checkpoint/load_stream.h) share: what one file's transfer holds
// (FileStream), the abort check, and feeding a file's bytes to its
// segments' checksums.
#ifndef CKPTBENCH_NODE_CHECKPOINT_STREAM_UTIL_H_
#define CKPTBENCH_NODE_CHECKPOINT_STREAM_UTIL_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "common/checksum.h"
#include "common/histogram.h"
#include "node/checkpoint/file_io.h"
#include "node/storage/timed_storage.h"

namespace ckpt {

// Aborted naming the file once the phase is aborted.
absl::Status CheckAbort(const TransferContext& ctx, const FileJob& job);

// A file's segment checksums as its bytes go by, in file order.
struct SegmentSums {
  SegmentSums(const FileJob& job, ChecksumKind kind, std::vector<uint64_t>* out)
      : job(job), sum(NewChecksummer(kind)), done(out) {
    done->clear();
  }
  // Feeds [offset, offset + len) at p to the segments it overlaps;
  // `on_done(i)` runs as segment i's checksum completes (into *done).
  void Feed(uint64_t offset, const unsigned char* p, size_t len,
            const std::function<void(size_t)>& on_done = nullptr);
  // The same 64 KiB at a time, while the bytes are in the core's cache.
  void FeedBlock(uint64_t offset, const unsigned char* p, size_t len,
                 const std::function<void(size_t)>& on_done = nullptr);

  const FileJob& job;
  std::unique_ptr<Checksummer> sum;
  size_t seg = 0;  // the cursor into job.segments
  std::vector<uint64_t>* done;
};

// The block a file moves at a time: io.block_size, or less so that
// BufferBlocks(queue_depth) of them fit in `buffer`.
inline size_t BlockSize(const IoParams& params, const AlignedBuffer& buffer) {
  return std::min(params.block_size,
                  buffer.size() / BufferBlocks(params.queue_depth));
}

// One file's transfer, as a save and a load hold it alike: the phase's
// context, the file's job and io parameters, the rank's buffer, the
// phase's storage seen through the timing decorator (every storage call
// the file makes is timed into `stats`), the outcome it fills, its
// segments' checksums (into out->checksums) and the block it moves at a
// time.
class FileStream {
 protected:
  FileStream(const TransferContext& ctx, const FileJob& job,
             const IoParams& params, AlignedBuffer& buffer, OpStats* stats,
             FileOutcome* out)
      : ctx_(ctx),
        job_(job),
        params_(params),
        buffer_(buffer),
        storage_(*ctx.storage, stats),
        out_(out),
        sums_(job, params.checksum, &out->checksums),
        block_(BlockSize(params, buffer)) {}

  const TransferContext& ctx_;
  const FileJob& job_;
  const IoParams& params_;
  AlignedBuffer& buffer_;
  TimedStorage storage_;
  FileOutcome* out_;
  SegmentSums sums_;
  const size_t block_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_STREAM_UTIL_H_
