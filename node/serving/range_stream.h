// A rank's reads of a model in `stream` mode, as Run:ai's Model Streamer
// reads (run-ai/runai-model-streamer docs/README.md: concurrent reads into
// a bounded CPU buffer, handed on while later reads go on): the rank's
// byte ranges cut into chunks of at most `chunk_bytes`, `concurrency`
// threads each reading one chunk at a time into a buffer of its own, each
// chunk handed to the caller's sink before its buffer is reused. Memory:
// concurrency x chunk_bytes (the largest chunk, if smaller), whatever the
// model's size; the chunks are found as they are claimed, from the ranges,
// never listed. Object stores get
// one ranged read per chunk (the reader opened on just that chunk: no
// read-ahead past it); file systems keep a thread's file open across its
// chunks of that file. The caller's IoTally (node/storage/io_tally.h), when
// one is current, counts the requests its reading threads send. Thread-safe;
// the sink is called from the reading threads, one chunk at a time per
// thread.
#ifndef CKPTBENCH_NODE_SERVING_RANGE_STREAM_H_
#define CKPTBENCH_NODE_SERVING_RANGE_STREAM_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/serving/serve_options.h"  // kMaxStream*
#include "common/serving/tp_slices.h"
#include "node/storage/storage.h"

namespace ckpt {

struct StreamOptions {
  int concurrency = 8;
  uint64_t chunk_bytes = 8 << 20;
  // File systems: each chunk read with O_DIRECT, past the page cache: the
  // 4 KiB-aligned run that covers it, into an aligned buffer of its own
  // (each thread's buffer: the largest chunk plus 8 KiB). Object stores
  // and FUSE mounts ignore it.
  bool direct = false;
  // Before each chunk's read, count what of it the host's page cache holds
  // (ReadableFile::CachedBytes: file systems), into cached_bytes: the reads
  // another replica on the host, or an earlier load, served.
  bool count_cached = false;
};

// A file to read ranges of: where it is, its size (from the listing), and
// the ranges (sorted, disjoint).
struct StreamedFile {
  std::string path;
  uint64_t size = 0;
  std::vector<ByteRange> ranges;
};

struct StreamTally {
  uint64_t bytes = 0, chunks = 0;
  // Since the call: the first chunk's bytes in, the last chunk's (before
  // the sink's work on them).
  double first_byte_seconds = -1, last_byte_seconds = 0;
  uint64_t buffer_bytes = 0;  // held for the reads: threads x largest chunk
  int threads = 0;
  uint64_t major_faults = 0;  // mmap mode: the page faults that read
  // With count_cached: bytes the page cache held when they were to be read.
  uint64_t cached_bytes = 0;
  // Object stores: per file (in the order given) the requests its chunks
  // sent, their retries and the throttles among the responses; counted
  // also on the caller's IoTally, when one is current.
  struct FileIo {
    uint64_t requests = 0, retries = 0, throttles = 0;
  };
  std::vector<FileIo> files_io;
};

// Called with each chunk read: the file's index, the chunk's offset in it,
// its bytes. An error stops the reads and is returned.
using ChunkSink = std::function<absl::Status(
    size_t file, uint64_t offset, const unsigned char* data, size_t len)>;

// Reads every range of `files` from `storage`; the first error (a read's,
// the sink's) stops the threads and is returned naming the file; `abort`
// (may be null) stops them between chunks, Aborted.
absl::StatusOr<StreamTally> StreamRanges(Storage& storage,
                                         const std::vector<StreamedFile>& files,
                                         const StreamOptions& options,
                                         const ChunkSink& sink,
                                         const std::atomic<bool>* abort);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_SERVING_RANGE_STREAM_H_
