#include "node/file_io.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/clock.h"
#include "common/cuda.h"
#include "common/status_macros.h"
#include "node/block_ring.h"
#include "node/file_ranges.h"
#include "node/pattern.h"
#include "node/shard_memory.h"
#include "node/storage/io_tally.h"

namespace ckpt {
namespace {

// Times one call into `h` (nanoseconds).
template <typename F>
auto Timed(Histogram& h, F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  auto result = f();
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now() - t0)
                .count();
  h.Record(static_cast<uint64_t>(ns));
  return result;
}

absl::Status CheckAbort(const TransferContext& ctx, const FileJob& job) {
  if (ctx.abort != nullptr && ctx.abort->load(std::memory_order_relaxed)) {
    return absl::AbortedError(
        absl::StrCat("aborted while transferring ", job.path));
  }
  return absl::OkStatus();
}

// Feeds [offset, offset+len) of the file to the checksums of the segments
// it overlaps; `seg` is the cursor into job.segments.
void FeedSegments(const FileJob& job, uint64_t offset, const unsigned char* p,
                  size_t len, Checksummer& sum, size_t& seg,
                  std::vector<uint64_t>& done_sums,
                  const std::function<void(size_t)>& on_segment_done) {
  while (len > 0 && seg < job.segments.size()) {
    const SegmentJob& s = job.segments[seg];
    uint64_t seg_end = s.file_offset + s.length;
    size_t take =
        static_cast<size_t>(std::min<uint64_t>(len, seg_end - offset));
    sum.Update(p, take);
    p += take;
    offset += take;
    len -= take;
    if (offset == seg_end) {
      done_sums.push_back(sum.Value());
      sum.Reset();
      if (on_segment_done) on_segment_done(seg);
      ++seg;
    }
  }
}

// Re-reads segment `s` and names the first byte that differs from the
// pattern; used only after a checksum mismatch.
std::string LocateMismatch(const TransferContext& ctx, const FileJob& job,
                           const IoParams& params, const SegmentJob& s) {
  auto file = ctx.storage->OpenRead(job.path, ReadOptions{});
  if (!file.ok()) return "";
  std::vector<unsigned char> buf(1 << 20);
  for (uint64_t off = s.file_offset; off < s.file_offset + s.length;) {
    size_t want = static_cast<size_t>(
        std::min<uint64_t>(buf.size(), s.file_offset + s.length - off));
    auto n = (*file)->Read(off, buf.data(), want);
    if (!n.ok() || *n == 0) break;
    size_t bad = FirstPatternMismatch(params.stream_key, off, buf.data(), *n);
    if (bad < *n) return absl::StrCat(" at byte offset ", off + bad);
    off += *n;
  }
  // The bytes are the ones the save wrote: either the first read returned
  // something else, or the recorded checksum is not theirs.
  return absl::StrCat(
      " in bytes [", s.file_offset, ", ", s.file_offset + s.length,
      ") (a second read returns the bytes the save wrote: the first read "
      "returned different ones, or the .metadata's checksum does not belong "
      "to them)");
}

}  // namespace

namespace {

// Whole 4 KiB pages (at least one), 4 KiB-aligned; nullptr when the
// allocation fails.
unsigned char* AllocateAligned(size_t size) {
  void* p = nullptr;
  const size_t rounded = std::max<size_t>(4096, (size + 4095) / 4096 * 4096);
  if (posix_memalign(&p, 4096, rounded) != 0) return nullptr;
  return static_cast<unsigned char*>(p);
}

}  // namespace

AlignedBuffer::AlignedBuffer(size_t size) : size_(size) {
  data_ = AllocateAligned(size);
  if (data_ == nullptr) std::abort();
  std::memset(data_, 0, size_);
}

absl::StatusOr<std::unique_ptr<AlignedBuffer>> AlignedBuffer::Create(
    size_t size, bool pinned) {
  void* p = nullptr;
  if (!pinned) {
    p = AllocateAligned(size);
    if (p == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot allocate ", size, " bytes of host memory"));
    }
  } else {
    // cudaHostAlloc returns page-aligned memory.
    ASSIGN_OR_RETURN(p, cuda::PinnedAlloc(size == 0 ? 1 : size));
  }
  std::memset(p, 0, size);
  return std::unique_ptr<AlignedBuffer>(
      new AlignedBuffer(static_cast<unsigned char*>(p), size, pinned));
}

AlignedBuffer::~AlignedBuffer() {
  if (pinned_) {
    cuda::PinnedFree(data_);
  } else {
    std::free(data_);
  }
}

namespace {

// Feeds [off, off + n) of the file, at p, to the segment checksums 64 KiB
// at a time.
void ChecksumBlock(const FileJob& job, uint64_t off, const unsigned char* p,
                   size_t n, Checksummer& sum, size_t& seg,
                   std::vector<uint64_t>& sums) {
  for (size_t done = 0; done < n;) {
    const size_t m = std::min<size_t>(64 << 10, n - done);
    FeedSegments(job, off + done, p + done, m, sum, seg, sums, nullptr);
    done += m;
  }
}

// Tests only: CKPTBENCH_TEST_GENERATE_DELAY_MS=N makes every generated
// block take N ms longer, a generator slower than the storage on purpose
// (the client-bound check must see it). Read once; 0 when unset.
int TestGenerateDelayMs() {
  static const int ms = [] {
    const char* v = std::getenv("CKPTBENCH_TEST_GENERATE_DELAY_MS");
    int n = 0;
    return v != nullptr && absl::SimpleAtoi(v, &n) && n > 0 ? n : 0;
  }();
  return ms;
}

// Tests only: with CKPTBENCH_TEST_HANG_IN_SAVE set, a save's file thread
// blocks in read(2) on a pipe no one writes, as a thread stuck in a system
// call no signal ends (a FUSE mount whose daemon stopped answering): what
// the interrupt watchdog (main/run_support.h) must end.
void TestHangInSave() {
  static const bool hang =
      std::getenv("CKPTBENCH_TEST_HANG_IN_SAVE") != nullptr;
  if (!hang) return;
  int fds[2];
  if (pipe(fds) != 0) return;
  char c;
  while (true) {
    const ssize_t n = read(fds[0], &c, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) return;
  }
}

// Generates [off, off + n) of the file into p and feeds the segment
// checksums 64 KiB at a time, while those bytes are still in cache.
void GenerateBlock(const FileJob& job, const IoParams& params, uint64_t off,
                   unsigned char* p, size_t n, Checksummer& sum, size_t& seg,
                   std::vector<uint64_t>& sums) {
  if (TestGenerateDelayMs() > 0) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(TestGenerateDelayMs()));
  }
  constexpr size_t kSpan = 64 << 10;
  for (size_t done = 0; done < n;) {
    const size_t m = std::min(kSpan, n - done);
    FillPattern(params.stream_key, off + done, p + done, m);
    FeedSegments(job, off + done, p + done, m, sum, seg, sums, nullptr);
    done += m;
  }
}

// Produces block [off, off + n) into p: copied out of the device memory
// the bytes live in (timed), or generated; then checksummed.
absl::Status ProduceBlock(const FileJob& job, const IoParams& params,
                          uint64_t off, unsigned char* p, size_t n,
                          Checksummer& sum, size_t& seg,
                          std::vector<uint64_t>& sums, FileOutcome* out) {
  if (params.device == nullptr) {
    const auto t0 = std::chrono::steady_clock::now();
    GenerateBlock(job, params, off, p, n, sum, seg, sums);
    out->data_seconds += SecondsSince(t0);
    return absl::OkStatus();
  }
  const auto t0 = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(params.device->CopyOut(off, p, n));
  out->copy_seconds += SecondsSince(t0);
  out->copy_bytes += n;
  const auto t1 = std::chrono::steady_clock::now();
  FeedSegments(job, off, p, n, sum, seg, sums, nullptr);
  out->data_seconds += SecondsSince(t1);
  return absl::OkStatus();
}

size_t BlockSize(const IoParams& params, const AlignedBuffer& buffer) {
  return std::min(params.block_size,
                  buffer.size() / BufferBlocks(params.queue_depth));
}

// The end of a save: fsync (when asked), close (the durability point on
// FUSE mounts and object stores), and the file's done time.
absl::Status FinishSave(const TransferContext& ctx, const IoParams& params,
                        WritableFile& file, OpStats* stats, FileOutcome* out) {
  out->last_byte_seconds = SecondsSince(ctx.start);
  if (params.fsync) {
    RETURN_IF_ERROR(Timed(stats->fsync, [&] { return file.Sync(); }));
  }
  RETURN_IF_ERROR(Timed(stats->close, [&] { return file.Close(); }));
  out->done_seconds = SecondsSince(ctx.start);
  return absl::OkStatus();
}

}  // namespace

absl::Status StageFile(const ShardMemory& from, AlignedBuffer& to, size_t block,
                       const std::atomic<bool>& abort, FileOutcome* out) {
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t off = 0; off < from.size();) {
    if (abort.load(std::memory_order_relaxed)) {
      return absl::AbortedError("aborted while staging");
    }
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(block, from.size() - off));
    RETURN_IF_ERROR(from.CopyOut(off, to.data() + off, n));
    off += n;
  }
  out->copy_seconds += SecondsSince(t0);
  out->copy_bytes += from.size();
  return absl::OkStatus();
}

absl::Status SaveFile(const TransferContext& ctx, const FileJob& job,
                      const IoParams& params, AlignedBuffer& buffer,
                      OpStats* stats, FileOutcome* out) {
  out->start_seconds = SecondsSince(ctx.start);
  TestHangInSave();
  WriteOptions wo;
  wo.direct = params.direct;
  ASSIGN_OR_RETURN(auto file, Timed(stats->open, [&] {
                     return ctx.storage->OpenWrite(job.path, wo);
                   }));
  auto sum = NewChecksummer(params.checksum);
  size_t seg = 0;
  out->checksums.clear();
  const size_t block = BlockSize(params, buffer);
  const uint64_t blocks = (job.size + block - 1) / block;
  auto length = [&](uint64_t k) {
    return static_cast<size_t>(std::min<uint64_t>(block, job.size - k * block));
  };
  // Runs on the writer side only: stats->write, first byte, bytes.
  auto write = [&](const unsigned char* p, size_t n) -> absl::Status {
    RETURN_IF_ERROR(Timed(stats->write, [&] { return file->Append(p, n); }));
    if (out->first_byte_seconds < 0) {
      out->first_byte_seconds = SecondsSince(ctx.start);
    }
    out->bytes += n;
    if (ctx.progress) ctx.progress->fetch_add(n, std::memory_order_relaxed);
    return absl::OkStatus();
  };
  // A backend that lends its part buffer (S3) has the bytes generated where
  // they are sent from, its own uploads in flight overlapping the
  // generation; a block that would straddle two of its parts is made in
  // ours and copied. Without a lender, queue depth 0 takes turns here.
  if (params.source != nullptr) {
    // Staged already, so the bytes stay put: written from where they are
    // (a lending backend copies them into its part buffer) and checksummed
    // 64 KiB at a time. With queue_depth > 0 a writer thread writes while
    // this one checksums, as a generated save overlaps the two.
    auto checksum = [&](uint64_t k) {
      const auto t0 = std::chrono::steady_clock::now();
      ChecksumBlock(job, k * block, params.source + k * block, length(k), *sum,
                    seg, out->checksums);
      out->data_seconds += SecondsSince(t0);
    };
    if (BufferBlocks(params.queue_depth) == 1) {
      for (uint64_t k = 0; k < blocks; ++k) {
        RETURN_IF_ERROR(CheckAbort(ctx, job));
        checksum(k);
        RETURN_IF_ERROR(write(params.source + k * block, length(k)));
      }
    } else {
      absl::Status written;
      std::thread writer([&, tally = CurrentIoTally()] {
        ScopedIoTally scope(tally);  // its requests count for this file
        for (uint64_t k = 0; k < blocks && written.ok(); ++k) {
          written = CheckAbort(ctx, job);
          if (written.ok())
            written = write(params.source + k * block, length(k));
        }
      });
      for (uint64_t k = 0; k < blocks; ++k) checksum(k);
      writer.join();
      RETURN_IF_ERROR(written);
    }
    return FinishSave(ctx, params, *file, stats, out);
  }
  // Bytes copied out of a device go through this file's (pinned) blocks,
  // not into a lending backend's pageable part buffers.
  const bool lends = params.device == nullptr && blocks > 0 &&
                     file->BorrowBuffer(length(0)) != nullptr;
  if (lends || BufferBlocks(params.queue_depth) == 1) {
    for (uint64_t k = 0; k < blocks; ++k) {
      RETURN_IF_ERROR(CheckAbort(ctx, job));
      unsigned char* p = lends ? file->BorrowBuffer(length(k)) : nullptr;
      if (p == nullptr) p = buffer.data();
      RETURN_IF_ERROR(ProduceBlock(job, params, k * block, p, length(k), *sum,
                                   seg, out->checksums, out));
      RETURN_IF_ERROR(write(p, length(k)));
    }
  } else {
    BlockRing ring(buffer.data(), block, BufferBlocks(params.queue_depth));
    absl::Status write_status;
    std::thread writer([&, tally = CurrentIoTally()] {
      ScopedIoTally scope(tally);  // its requests count for this file
      for (uint64_t k = 0; k < blocks; ++k) {
        BlockRing::Ready r = ring.WaitReady(k);
        if (r.data == nullptr) return;  // the generator stopped
        write_status = write(r.data, r.len);
        if (!write_status.ok()) {
          ring.Stop();
          return;
        }
        ring.Release(k);
      }
    });
    absl::Status gen_status;
    for (uint64_t k = 0; k < blocks; ++k) {
      gen_status = CheckAbort(ctx, job);
      if (!gen_status.ok()) break;
      unsigned char* p = ring.AcquireFree(k);
      if (p == nullptr) break;  // the writer failed
      gen_status = ProduceBlock(job, params, k * block, p, length(k), *sum, seg,
                                out->checksums, out);
      if (!gen_status.ok()) break;
      ring.Publish(k, length(k));
    }
    if (!gen_status.ok()) ring.Stop();
    writer.join();
    RETURN_IF_ERROR(write_status);
    RETURN_IF_ERROR(gen_status);
  }
  return FinishSave(ctx, params, *file, stats, out);
}

absl::Status LoadFile(const TransferContext& ctx, const FileJob& job,
                      const IoParams& params, AlignedBuffer& buffer,
                      OpStats* stats, FileOutcome* out) {
  out->start_seconds = SecondsSince(ctx.start);
  const uint64_t copied_before = out->copy_bytes;
  ReadOptions ro;
  ro.direct = params.direct;
  // The size the checkpoint's .metadata gives: object stores read without
  // a HEAD first, checking it on every ranged answer; file systems stat.
  if (job.size > 0) ro.size = job.size;  // an empty one: HEAD finds it
  if (job.ranges) {
    RETURN_IF_ERROR(CheckRangesJob(job));
    ro.extents = ReadExtents(job, params.direct);
  }
  ASSIGN_OR_RETURN(auto file, Timed(stats->open, [&] {
                     return ctx.storage->OpenRead(job.path, ro);
                   }));
  if (file->Size() != job.size) {
    return absl::DataLossError(
        absl::StrCat(job.path, " is ", file->Size(),
                     " bytes; the checkpoint's .metadata "
                     "says ",
                     job.size));
  }
  auto sum = NewChecksummer(params.checksum);
  size_t seg = 0;
  out->checksums.clear();
  absl::Status mismatch;
  auto check = [&](size_t i) {
    const SegmentJob& s = job.segments[i];
    if (!mismatch.ok() || !s.has_expected) return;
    if (out->checksums[i] == s.expected) {
      out->checked_bytes += s.length;
      return;
    }
    mismatch = absl::DataLossError(absl::StrCat(
        "checksum mismatch in ", job.path, LocateMismatch(ctx, job, params, s),
        " (segment of tensor ", TensorName(job, s), " at tensor byte ",
        s.tensor_offset,
        absl::StrFormat(", %s expected %016x, read %016x)",
                        ChecksumName(params.checksum), s.expected,
                        out->checksums[i])));
  };
  const size_t block = BlockSize(params, buffer);
  // The pieces read, each at most a block: the file's blocks, or its
  // extents' (a resharded restore's ranges).
  std::vector<std::pair<uint64_t, size_t>> pieces;
  for (const auto& [begin, end] :
       job.ranges ? ro.extents
                  : std::vector<std::pair<uint64_t, uint64_t>>{{0, job.size}}) {
    for (uint64_t off = begin; off < end; off += block) {
      pieces.push_back(
          {off, static_cast<size_t>(std::min<uint64_t>(block, end - off))});
    }
  }
  const uint64_t blocks = pieces.size();
  // Where a resharded file's kept bytes go in the rank's memory (a load
  // onto a device only).
  std::optional<KeptLayout> kept;
  if (job.ranges && params.device != nullptr) kept.emplace(job);
  // Reads piece k whole into p; any thread (its own histogram).
  auto read = [&](uint64_t k, unsigned char* p,
                  Histogram& h) -> absl::StatusOr<size_t> {
    const uint64_t off = pieces[k].first;
    const size_t want = pieces[k].second;
    // O_DIRECT needs whole 4 KiB blocks even at the end of the file.
    const size_t ask =
        params.direct ? std::min(block, (want + 4095) / 4096 * 4096) : want;
    size_t got = 0;
    while (got < want) {
      ASSIGN_OR_RETURN(size_t n, Timed(h, [&] {
                         return file->Read(off + got, p + got, ask - got);
                       }));
      if (n == 0) {
        return absl::DataLossError(absl::StrCat(
            job.path, ": unexpected end of file at byte ", off + got));
      }
      got += n;
    }
    return want;
  };
  // The calling thread: verification in file order.
  auto verify = [&](uint64_t k, const unsigned char* p,
                    size_t n) -> absl::Status {
    if (out->first_byte_seconds < 0) {
      out->first_byte_seconds = SecondsSince(ctx.start);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t off = pieces[k].first;
    if (job.ranges) {
      RETURN_IF_ERROR(CheckRange(job, params.stream_key, off, p, n));
      out->checked_bytes += n;
    } else {
      for (size_t done = 0; done < n;) {  // 64 KiB at a time, as a save does
        const size_t m = std::min<size_t>(64 << 10, n - done);
        FeedSegments(job, off + done, p + done, m, *sum, seg, out->checksums,
                     check);
        RETURN_IF_ERROR(mismatch);
        done += m;
      }
    }
    out->data_seconds += SecondsSince(t0);
    if (params.device != nullptr) {  // verified on the host, then copied
      const auto t0 = std::chrono::steady_clock::now();
      if (kept) {  // only the bytes the rank keeps, one after another
        RETURN_IF_ERROR(
            kept->CopyIn(off, p, n, *params.device, &out->copy_bytes));
      } else {
        RETURN_IF_ERROR(params.device->CopyIn(off, p, n));
        out->copy_bytes += n;
      }
      out->copy_seconds += SecondsSince(t0);
    }
    out->bytes += n;
    if (ctx.progress) ctx.progress->fetch_add(n, std::memory_order_relaxed);
    return absl::OkStatus();
  };
  if (BufferBlocks(params.queue_depth) == 1) {
    for (uint64_t k = 0; k < blocks; ++k) {
      RETURN_IF_ERROR(CheckAbort(ctx, job));
      ASSIGN_OR_RETURN(size_t n, read(k, buffer.data(), stats->read));
      RETURN_IF_ERROR(verify(k, buffer.data(), n));
    }
  } else {
    BlockRing ring(buffer.data(), block, BufferBlocks(params.queue_depth));
    const size_t readers = static_cast<size_t>(std::min<uint64_t>(
        file->ConcurrentReads() ? params.queue_depth : 1, blocks));
    std::vector<Histogram> reads(readers);
    std::atomic<uint64_t> next{0};
    std::vector<std::thread> threads;
    for (size_t i = 0; i < readers; ++i) {
      threads.emplace_back([&, i, tally = CurrentIoTally()] {
        ScopedIoTally scope(tally);  // its requests count for this file
        for (;;) {
          const uint64_t k = next.fetch_add(1);
          if (k >= blocks) return;
          unsigned char* p = ring.AcquireFree(k);
          if (p == nullptr) return;  // the verifier stopped
          absl::StatusOr<size_t> n = read(k, p, reads[i]);
          ring.Publish(k, n.ok() ? *n : 0, n.status());
          if (!n.ok()) return;
        }
      });
    }
    absl::Status status;
    for (uint64_t k = 0; k < blocks && status.ok(); ++k) {
      status = CheckAbort(ctx, job);
      if (!status.ok()) break;
      BlockRing::Ready r = ring.WaitReady(k);
      status = r.data == nullptr ? absl::InternalError("block ring stopped")
                                 : r.status;
      if (status.ok()) status = verify(k, r.data, r.len);
      ring.Release(k);
    }
    ring.Stop();
    for (auto& t : threads) t.join();
    for (const auto& h : reads) stats->read.Merge(h);
    RETURN_IF_ERROR(status);
  }
  if (kept && out->copy_bytes - copied_before != kept->bytes()) {
    return absl::InternalError(
        absl::StrCat(job.path, ": ", out->copy_bytes - copied_before,
                     " bytes reached the rank's memory, not the ",
                     kept->bytes(), " it keeps of the ranges read"));
  }
  out->last_byte_seconds = SecondsSince(ctx.start);
  RETURN_IF_ERROR(file->Close());
  out->done_seconds = SecondsSince(ctx.start);
  return absl::OkStatus();
}

}  // namespace ckpt
