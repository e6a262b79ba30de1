// Streams one shard file: a save generates the deterministic bytes in
// block_size pieces, checksums each segment and writes it; a load reads,
// checksums and compares against the expected segment checksums, and on a
// mismatch re-reads the segment to name the first bad byte's offset.
// Bytes are checksummed 64 KiB at a time right after they are generated
// (or as they are verified), while they are still in the core's cache.
// With queue_depth > 0 the CPU work overlaps the I/O: a save generates up
// to queue_depth blocks ahead of a writer thread (writes stay sequential,
// as object stores and FUSE mounts need); a load keeps queue_depth reads
// in flight on reader threads (one when the file cannot take concurrent
// reads) while the calling thread verifies in order.
// Memory is BufferBlocks(queue_depth) aligned blocks per file, whatever
// the file size. Functions are thread-safe given distinct buffers and
// stats. SaveFile and LoadFile run a SaveStream / LoadStream
// (node/checkpoint/save_stream.h, node/checkpoint/load_stream.h); this file
// holds what they and the node agent share.
#ifndef CKPTBENCH_NODE_CHECKPOINT_FILE_IO_H_
#define CKPTBENCH_NODE_CHECKPOINT_FILE_IO_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/checksum.h"
#include "common/histogram.h"
#include "common/phase_job.h"
#include "node/storage/storage.h"
#include "node/storage/timed_storage.h"

namespace ckpt {

class ShardMemory;  // node/checkpoint/shard_memory.h

struct IoParams {
  size_t block_size = 4 << 20;
  bool fsync = true;
  bool direct = false;
  ChecksumKind checksum = ChecksumKind::kXxh3;
  uint64_t stream_key = 0;  // PatternStreamKey of (seed, step, rank, file)
  int queue_depth = 0;      // io.queue_depth
  // Where the bytes come from or go besides storage (else a save generates
  // them and a load only verifies them):
  // - source: the file's bytes, already staged in host memory (an async
  //   save persisting them); written from there, checksummed on the way;
  // - device: the memory they live in (a GPU's): a save copies each block
  //   out of it before writing, a load copies each verified block into it;
  //   the copies are timed into FileOutcome::copy_seconds.
  const unsigned char* source = nullptr;
  ShardMemory* device = nullptr;
};

// Blocks of buffer a file needs at this queue depth: the ones in flight
// plus the one being generated or verified.
inline size_t BufferBlocks(int queue_depth) {
  return queue_depth <= 0 ? 1 : static_cast<size_t>(queue_depth) + 1;
}

// A 4 KiB-aligned buffer (for O_DIRECT), touched at allocation so page
// faults are not timed; pageable, or pinned (page-locked by the CUDA
// runtime, for full-speed copies to and from a GPU).
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t size);  // pageable
  // Pinned when `pinned` (an error in a build without GPU support).
  static absl::StatusOr<std::unique_ptr<AlignedBuffer>> Create(size_t size,
                                                               bool pinned);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  unsigned char* data() { return data_; }
  size_t size() const { return size_; }
  bool pinned() const { return pinned_; }

 private:
  AlignedBuffer(unsigned char* data, size_t size, bool pinned)
      : data_(data), size_(size), pinned_(pinned) {}
  unsigned char* data_ = nullptr;
  size_t size_ = 0;
  bool pinned_ = false;
};

using SteadyTime = std::chrono::steady_clock::time_point;

struct FileOutcome {
  uint64_t bytes = 0;
  // Loads: bytes of segments whose checksum was compared with the one
  // recorded at save (all of them, for a file that counts as verified).
  uint64_t checked_bytes = 0;
  std::vector<uint64_t> checksums;  // per segment
  double start_seconds = 0;         // began, since the phase start
  double first_byte_seconds = -1;   // since the phase start
  double last_byte_seconds = 0;     // last byte written / read
  double done_seconds = 0;          // durable / verified, since phase start
  double copy_seconds = 0;          // IoParams::device copies
  uint64_t copy_bytes = 0;
  // Making or checking bytes: generating and checksumming a save's blocks
  // (or checksumming copied ones), verifying a load's; on the file's own
  // thread. Near done_seconds, this tool, not storage, set the pace.
  double data_seconds = 0;
};

// The context a file transfer shares with its rank and node.
struct TransferContext {
  Storage* storage = nullptr;
  SteadyTime start;
  std::atomic<uint64_t>* progress = nullptr;  // rank bytes done
  const std::atomic<bool>* abort = nullptr;
};

// An async save's staging: copies the whole of `from` into `to` (at least
// as large) in `block`-sized pieces, stopping at *abort; the copy is timed
// into out->copy_seconds / copy_bytes.
absl::Status StageFile(const ShardMemory& from, AlignedBuffer& to, size_t block,
                       const std::atomic<bool>& abort, FileOutcome* out);

// `buffer` holds BufferBlocks(params.queue_depth) blocks (a smaller one
// shrinks the block size to fit). Both transfers time every storage call
// they make into `stats` (TimedStorage, node/storage/timed_storage.h).
absl::Status SaveFile(const TransferContext& ctx, const FileJob& job,
                      const IoParams& params, AlignedBuffer& buffer,
                      OpStats* stats, FileOutcome* out);

// DataLoss naming the file and byte offset on a mismatch. A file with
// `ranges` is read only there, each byte checked against the writer's
// regenerated bytes (node/pattern.h) instead of a segment checksum.
absl::Status LoadFile(const TransferContext& ctx, const FileJob& job,
                      const IoParams& params, AlignedBuffer& buffer,
                      OpStats* stats, FileOutcome* out);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_FILE_IO_H_
