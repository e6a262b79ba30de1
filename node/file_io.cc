#include "node/file_io.h"

#include <cstdlib>
#include <cstring>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/clock.h"
#include "common/status_macros.h"
#include "node/pattern.h"

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

std::string TensorName(const FileJob& job, const SegmentJob& s) {
  if (job.tensor_names && s.tensor < job.tensor_names->size()) {
    return (*job.tensor_names)[s.tensor];
  }
  return absl::StrCat("#", s.tensor);
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

AlignedBuffer::AlignedBuffer(size_t size) : size_(size) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, (size + 4095) / 4096 * 4096) != 0) std::abort();
  data_ = static_cast<unsigned char*>(p);
  std::memset(data_, 0, size_);
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

absl::Status SaveFile(const TransferContext& ctx, const FileJob& job,
                      const IoParams& params, AlignedBuffer& buffer,
                      OpStats* stats, FileOutcome* out) {
  WriteOptions wo;
  wo.direct = params.direct;
  ASSIGN_OR_RETURN(auto file, Timed(stats->open, [&] {
                     return ctx.storage->OpenWrite(job.path, wo);
                   }));
  auto sum = NewChecksummer(params.checksum);
  size_t seg = 0;
  out->checksums.clear();
  const size_t block = std::min(params.block_size, buffer.size());
  for (uint64_t off = 0; off < job.size;) {
    RETURN_IF_ERROR(CheckAbort(ctx, job));
    size_t n = static_cast<size_t>(std::min<uint64_t>(block, job.size - off));
    FillPattern(params.stream_key, off, buffer.data(), n);
    FeedSegments(job, off, buffer.data(), n, *sum, seg, out->checksums,
                 nullptr);
    absl::Status s =
        Timed(stats->write, [&] { return file->Append(buffer.data(), n); });
    if (!s.ok()) return s;
    if (out->first_byte_seconds < 0)
      out->first_byte_seconds = SecondsSince(ctx.start);
    off += n;
    out->bytes += n;
    if (ctx.progress) ctx.progress->fetch_add(n, std::memory_order_relaxed);
  }
  if (params.fsync) {
    RETURN_IF_ERROR(Timed(stats->fsync, [&] { return file->Sync(); }));
  }
  RETURN_IF_ERROR(Timed(stats->close, [&] { return file->Close(); }));
  out->done_seconds = SecondsSince(ctx.start);
  return absl::OkStatus();
}

absl::Status LoadFile(const TransferContext& ctx, const FileJob& job,
                      const IoParams& params, AlignedBuffer& buffer,
                      OpStats* stats, FileOutcome* out) {
  ReadOptions ro;
  ro.direct = params.direct;
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
  const size_t block = std::min(params.block_size, buffer.size());
  for (uint64_t off = 0; off < job.size;) {
    RETURN_IF_ERROR(CheckAbort(ctx, job));
    size_t want =
        static_cast<size_t>(std::min<uint64_t>(block, job.size - off));
    // O_DIRECT needs whole 4 KiB blocks even at the end of the file.
    size_t ask =
        params.direct ? std::min(block, (want + 4095) / 4096 * 4096) : want;
    ASSIGN_OR_RETURN(size_t n, Timed(stats->read, [&] {
                       return file->Read(off, buffer.data(), ask);
                     }));
    if (n == 0) {
      return absl::DataLossError(
          absl::StrCat(job.path, ": unexpected end of file at byte ", off));
    }
    n = std::min(n, want);
    if (out->first_byte_seconds < 0)
      out->first_byte_seconds = SecondsSince(ctx.start);
    FeedSegments(job, off, buffer.data(), n, *sum, seg, out->checksums, check);
    RETURN_IF_ERROR(mismatch);
    off += n;
    out->bytes += n;
    if (ctx.progress) ctx.progress->fetch_add(n, std::memory_order_relaxed);
  }
  RETURN_IF_ERROR(file->Close());
  out->done_seconds = SecondsSince(ctx.start);
  return absl::OkStatus();
}

}  // namespace ckpt
