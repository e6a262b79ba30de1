#include "node/serving/range_stream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "node/storage/io_tally.h"

namespace ckpt {
namespace {

// O_DIRECT's alignment of offsets, lengths and buffers.
constexpr uint64_t kDirectAlign = 4096;

struct Chunk {
  size_t file = 0;
  uint64_t offset = 0, length = 0;
};

// A range and the number of its first chunk: the chunks are found from
// these as they are claimed, never all held at once.
struct Segment {
  size_t file = 0;
  ByteRange range;
  uint64_t first_chunk = 0;
};

std::vector<Segment> Segments(const std::vector<StreamedFile>& files,
                              uint64_t chunk_bytes, uint64_t* chunks,
                              uint64_t* largest) {
  std::vector<Segment> out;
  *chunks = 0;
  *largest = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    for (const ByteRange& r : files[f].ranges) {
      if (r.length == 0) continue;
      out.push_back({f, r, *chunks});
      *chunks += (r.length + chunk_bytes - 1) / chunk_bytes;
      *largest = std::max(*largest, std::min(r.length, chunk_bytes));
    }
  }
  return out;
}

// What the threads share: the next chunk, the first error, the times.
class Streamer {
 public:
  Streamer(Storage& storage, const std::vector<StreamedFile>& files,
           const StreamOptions& options, const ChunkSink& sink,
           const std::atomic<bool>* abort, IoTally* files_io)
      : storage_(storage),
        files_(files),
        files_io_(files_io),
        chunk_bytes_(options.chunk_bytes),
        direct_(options.direct),
        count_cached_(options.count_cached && !options.direct),
        sink_(sink),
        abort_(abort),
        segments_(Segments(files, options.chunk_bytes, &chunks_, &largest_)),
        start_(SteadyClock::now()) {}

  // One reading thread's loop, with its own buffer.
  void Work();
  uint64_t chunks() const { return chunks_; }
  uint64_t largest() const { return largest_; }
  // A thread's buffer: the largest chunk, or with O_DIRECT the aligned run
  // around it.
  uint64_t BufferBytes() const {
    return direct_
               ? (largest_ + 2 * kDirectAlign - 1) / kDirectAlign * kDirectAlign
               : largest_;
  }
  absl::Status status() const { return error_; }
  uint64_t cached() const { return cached_.load(); }
  double first() const { return first_; }
  double last() const { return last_; }

 private:
  Chunk ChunkAt(uint64_t i) const;
  absl::Status ReadChunk(const Chunk& c, std::unique_ptr<ReadableFile>* open,
                         size_t* open_file, unsigned char* buffer);
  void Done(absl::Status st, double read_at);

  Storage& storage_;
  const std::vector<StreamedFile>& files_;
  IoTally* const files_io_;  // one per file, each inside the caller's
  const uint64_t chunk_bytes_;
  const bool direct_;
  const bool count_cached_;
  const ChunkSink& sink_;
  const std::atomic<bool>* abort_;
  uint64_t chunks_ = 0, largest_ = 0;
  const std::vector<Segment> segments_;
  const SteadyClock::time_point start_;
  std::atomic<uint64_t> next_{0};
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> cached_{0};
  std::mutex mu_;
  absl::Status error_;            // guarded by mu_
  double first_ = -1, last_ = 0;  // guarded by mu_
};

Chunk Streamer::ChunkAt(uint64_t i) const {
  auto it = std::upper_bound(
      segments_.begin(), segments_.end(), i,
      [](uint64_t n, const Segment& s) { return n < s.first_chunk; });
  const Segment& s = *(it - 1);
  const uint64_t at = (i - s.first_chunk) * chunk_bytes_;
  return {s.file, s.range.offset + at,
          std::min(chunk_bytes_, s.range.length - at)};
}

absl::Status Streamer::ReadChunk(const Chunk& c,
                                 std::unique_ptr<ReadableFile>* open,
                                 size_t* open_file, unsigned char* buffer) {
  const StreamedFile& f = files_[c.file];
  // The chunk's requests counted on its file's tally (and the caller's).
  ScopedIoTally file_io(&files_io_[c.file]);
  // A file system's reader serves any offset (pread): kept for the
  // thread's next chunk of the same file. An object store's is opened on
  // the chunk alone, so that it fetches nothing else.
  if (*open == nullptr || *open_file != c.file || !(*open)->ConcurrentReads()) {
    if (*open != nullptr) (void)(*open)->Close();
    ReadOptions options;
    options.size = f.size;
    options.size_from = "the model's listing";
    options.extents = {{c.offset, c.offset + c.length}};
    options.direct = direct_;
    ASSIGN_OR_RETURN(*open, storage_.OpenRead(f.path, options));
    *open_file = c.file;
  }
  if (count_cached_) {
    if (std::optional<uint64_t> n = (*open)->CachedBytes(c.offset, c.length)) {
      cached_.fetch_add(*n, std::memory_order_relaxed);
    }
  }
  if (!direct_) {
    RETURN_IF_ERROR(ReadFully(**open, c.offset, buffer,
                              static_cast<size_t>(c.length),
                              EscapeForTerminal(f.path)));
  } else {
    // The aligned run around the chunk (its end may pass the file's: the
    // read then stops short at it).
    const uint64_t from = c.offset / kDirectAlign * kDirectAlign;
    const uint64_t to =
        (c.offset + c.length + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
    uint64_t got = 0;
    while (from + got < c.offset + c.length) {
      ASSIGN_OR_RETURN(const size_t n,
                       (*open)->Read(from + got, buffer + got,
                                     static_cast<size_t>(to - from - got)));
      if (n == 0) {
        return absl::DataLossError(absl::StrCat(
            EscapeForTerminal(f.path), ": ended at byte ", from + got,
            ", before the ", c.offset + c.length, " its ranges need"));
      }
      got += n;
    }
    buffer += c.offset - from;
  }
  Done(absl::OkStatus(),
       SecondsSince(start_));  // its bytes are in: before the sink's work
  return sink_(c.file, c.offset, buffer, static_cast<size_t>(c.length));
}

void Streamer::Done(absl::Status st, double read_at) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!st.ok()) {
    if (error_.ok()) error_ = std::move(st);
    stop_ = true;
    return;
  }
  if (first_ < 0) first_ = read_at;
  last_ = std::max(last_, read_at);
}

void Streamer::Work() {
  // Aligned for O_DIRECT (and harmless without it).
  std::unique_ptr<unsigned char, decltype(&std::free)> held(
      static_cast<unsigned char*>(std::aligned_alloc(
          kDirectAlign,
          (std::max<uint64_t>(BufferBytes(), 1) + kDirectAlign - 1) /
              kDirectAlign * kDirectAlign)),
      &std::free);
  if (held == nullptr) {
    Done(absl::ResourceExhaustedError(absl::StrCat(
             "no memory for a read buffer of ", BufferBytes(), " bytes")),
         0);
    return;
  }
  unsigned char* const buffer = held.get();
  std::unique_ptr<ReadableFile> open;
  size_t open_file = 0;
  for (;;) {
    if (stop_) break;
    if (abort_ != nullptr && abort_->load()) {
      Done(absl::AbortedError("the model's load was stopped"), 0);
      break;
    }
    const uint64_t i = next_++;
    if (i >= chunks_) break;
    absl::Status st = ReadChunk(ChunkAt(i), &open, &open_file, buffer);
    if (!st.ok()) Done(std::move(st), 0);
  }
  if (open != nullptr) (void)open->Close();
}

}  // namespace

absl::StatusOr<StreamTally> StreamRanges(Storage& storage,
                                         const std::vector<StreamedFile>& files,
                                         const StreamOptions& options,
                                         const ChunkSink& sink,
                                         const std::atomic<bool>* abort) {
  if (options.concurrency < 1 || options.concurrency > kMaxStreamConcurrency ||
      options.chunk_bytes == 0 || options.chunk_bytes > kMaxStreamChunk ||
      !sink) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stream reads with concurrency ", options.concurrency,
        " and chunks of ", options.chunk_bytes, " bytes",
        sink ? "" : " and no sink", "; expected 1 to ", kMaxStreamConcurrency,
        " readers and chunks of 1 byte to ", kMaxStreamChunk));
  }
  // The caller's request tally goes with its reads to the threads, each
  // file's inside it.
  IoTally* const io = CurrentIoTally();
  const auto files_io = std::make_unique<IoTally[]>(files.size());
  for (size_t f = 0; f < files.size(); ++f) files_io[f].parent = io;
  Streamer s(storage, files, options, sink, abort, files_io.get());
  const int threads = static_cast<int>(std::min<uint64_t>(
      static_cast<uint64_t>(options.concurrency), s.chunks()));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&s, io] {
      ScopedIoTally scope(io);
      s.Work();
    });
  }
  for (std::thread& t : pool) t.join();
  RETURN_IF_ERROR(s.status());
  StreamTally tally;
  for (const StreamedFile& f : files) {
    for (const ByteRange& r : f.ranges) tally.bytes += r.length;
  }
  tally.chunks = s.chunks();
  tally.first_byte_seconds = s.first();
  tally.last_byte_seconds = s.last();
  tally.threads = threads;
  tally.buffer_bytes = static_cast<uint64_t>(threads) * s.BufferBytes();
  tally.cached_bytes = s.cached();
  for (size_t f = 0; f < files.size(); ++f) {
    tally.files_io.push_back({files_io[f].requests.load(),
                              files_io[f].retries.load(),
                              files_io[f].throttles.load()});
  }
  return tally;
}

}  // namespace ckpt
