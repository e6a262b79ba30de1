// A load's byte ranges: which bytes of a file it reads (all, or a resharded
// restore's ranges, widened for O_DIRECT), which of them land in the rank's
// memory, and how a range read is verified without a checksum: every byte
// against the writer's regenerated pattern.
#ifndef CKPTBENCH_NODE_CHECKPOINT_FILE_RANGES_H_
#define CKPTBENCH_NODE_CHECKPOINT_FILE_RANGES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "node/checkpoint/file_io.h"

namespace ckpt {

// The bytes of `job` a load needs: its size, or with `ranges` the ranges'.
uint64_t NeededBytes(const FileJob& job);

// The bytes of `job` that land in the rank's memory (a device's, on a
// GPU): its size, or with `ranges` the bytes it keeps of them (a whole
// segment read in "segments" mode keeps only the part the rank owns).
uint64_t KeptBytes(const FileJob& job);

// The extents a load of `job` reads: the whole file, or its ranges with
// adjacent ones merged (with `direct`, widened to 4 KiB boundaries, since
// O_DIRECT reads whole aligned blocks, and merged where they then meet).
std::vector<std::pair<uint64_t, uint64_t>> ReadExtents(const FileJob& job,
                                                       bool direct);

// Segment `s`'s tensor name, or "#<index>" when the job has no names.
std::string TensorName(const FileJob& job, const SegmentJob& s);

// A resharded restore's piece [off, off + n) of `job`, held at `p`: every
// byte must be the writer's (the pattern of `stream_key` at its file
// offset); DataLoss names the first that is not, and its tensor.
absl::Status CheckRange(const FileJob& job, uint64_t stream_key, uint64_t off,
                        const unsigned char* p, size_t n);

// A resharded job's segments as a load needs them: sorted by file offset,
// disjoint, inside the file, each kept span inside its segment;
// InvalidArgument naming the file and the segment otherwise.
absl::Status CheckRangesJob(const FileJob& job);

// Where a resharded file's kept bytes go in its rank's memory: each
// segment's kept span, one after another in file order.
class KeptLayout {
 public:
  explicit KeptLayout(const FileJob& job);
  // Copies to `memory` the kept bytes inside the piece [off, off + n) held
  // at `p`, each at its place; adds the bytes copied to *copied.
  absl::Status CopyIn(uint64_t off, const unsigned char* p, size_t n,
                      ShardMemory& memory, uint64_t* copied) const;
  uint64_t bytes() const { return bytes_; }  // KeptBytes(job)

 private:
  const FileJob& job_;
  std::vector<uint64_t> at_;  // segment i's kept bytes start here
  uint64_t bytes_ = 0;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_FILE_RANGES_H_
