// One shard file's save (SaveFile in node/checkpoint/file_io.h): its bytes
// generated (or copied out of the device memory they live in, or taken from
// where an async save staged them) a block at a time, checksummed per segment
// while in cache, and written in order; with queue_depth > 0 a writer thread
// writes while this one produces (a BlockRing of blocks between them), or
// a backend that lends its part buffer (S3) has them made where they are
// sent from. Then fsync (when asked) and close: the durability point.
#ifndef CKPTBENCH_NODE_CHECKPOINT_SAVE_STREAM_H_
#define CKPTBENCH_NODE_CHECKPOINT_SAVE_STREAM_H_

#include <cstdint>
#include <memory>

#include "node/checkpoint/file_io.h"
#include "node/checkpoint/stream_util.h"

namespace ckpt {

class SaveStream : private FileStream {
 public:
  SaveStream(const TransferContext& ctx, const FileJob& job,
             const IoParams& params, AlignedBuffer& buffer, OpStats* stats,
             FileOutcome* out);

  absl::Status Run();

 private:
  // Bytes of block k (the last may be short).
  size_t Length(uint64_t k) const;
  // The staged bytes: written from where they are, checksummed on the way.
  absl::Status FromSource();
  // Produced and written on this thread, into a lent part buffer or ours.
  absl::Status InTurns(bool lends);
  // Produced here, written by a writer thread, queue_depth blocks ahead.
  absl::Status Pipelined();
  // Block k into p: copied out of the device (timed) or generated; then
  // checksummed.
  absl::Status Produce(uint64_t k, unsigned char* p);
  // Generates block k into p, checksummed 64 KiB at a time.
  void Generate(uint64_t k, unsigned char* p);
  // Writes n bytes (the writer's side only: stats, first byte, bytes).
  absl::Status Write(const unsigned char* p, size_t n);
  // fsync (when asked), close, and the file's done time.
  absl::Status Finish();

  std::unique_ptr<WritableFile> file_;
  const uint64_t blocks_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_SAVE_STREAM_H_
