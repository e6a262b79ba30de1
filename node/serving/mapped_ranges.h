// A rank's reads of a model in `mmap` mode, as safetensors' safe_open and
// vLLM's default loader read a local file: each file the rank reads is
// mapped whole (PROT_READ, MAP_SHARED), and its ranges are copied out of
// the mapping in order, from one thread, a piece of at most
// `options.chunk_bytes` at a time (with `options.count_cached`, what the
// page cache held of each piece counted first, mincore), into one buffer (as a
// tensor is copied to its device): the page faults are the reads. Files are
// opened beneath `root` (node/storage/posix_open.h), so a file the model names
// is refused when it is not a regular file inside it. Local and FUSE paths
// only.
#ifndef CKPTBENCH_NODE_SERVING_MAPPED_RANGES_H_
#define CKPTBENCH_NODE_SERVING_MAPPED_RANGES_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "node/serving/range_stream.h"

namespace ckpt {

// Reads every range of `files` (their paths on the file system) through
// mappings; the first error (a file's, the sink's) is returned naming the
// file; `abort` (may be null) stops it between pieces, Aborted. The tally's
// chunks are the pieces; its requests the major page faults taken.
absl::StatusOr<StreamTally> MapRanges(const std::string& root,
                                      const std::vector<StreamedFile>& files,
                                      const StreamOptions& options,
                                      const ChunkSink& sink,
                                      const std::atomic<bool>* abort);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_SERVING_MAPPED_RANGES_H_
