#include "node/checkpoint/load_stream.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/clock.h"
#include "common/status_macros.h"
#include "node/checkpoint/block_ring.h"
#include "node/checkpoint/shard_memory.h"
#include "node/pattern.h"
#include "node/storage/io_tally.h"

namespace ckpt {
namespace {

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

LoadStream::LoadStream(const TransferContext& ctx, const FileJob& job,
                       const IoParams& params, AlignedBuffer& buffer,
                       OpStats* stats, FileOutcome* out)
    : FileStream(ctx, job, params, buffer, stats, out),
      copied_before_(out->copy_bytes) {}

absl::Status LoadStream::Run() {
  out_->start_seconds = SecondsSince(ctx_.start);
  RETURN_IF_ERROR(Open());
  PlanPieces();
  if (job_.ranges && params_.device != nullptr) kept_.emplace(job_);
  RETURN_IF_ERROR(BufferBlocks(params_.queue_depth) == 1 ? Serial()
                                                         : Pipelined());
  return Finish();
}

absl::Status LoadStream::Open() {
  options_.direct = params_.direct;
  // The size the checkpoint's .metadata gives: object stores read without
  // a HEAD first, checking it on every ranged answer; file systems stat.
  if (job_.size > 0) options_.size = job_.size;  // an empty one: HEAD finds it
  options_.size_from = "the checkpoint's .metadata";
  if (job_.ranges) {
    RETURN_IF_ERROR(CheckRangesJob(job_));
    options_.extents = ReadExtents(job_, params_.direct);
  }
  ASSIGN_OR_RETURN(file_, storage_.OpenRead(job_.path, options_));
  if (file_->Size() != job_.size) {
    return absl::DataLossError(
        absl::StrCat(job_.path, " is ", file_->Size(),
                     " bytes; the checkpoint's .metadata says ", job_.size));
  }
  return absl::OkStatus();
}

void LoadStream::PlanPieces() {
  for (const auto& [begin, end] :
       job_.ranges
           ? options_.extents
           : std::vector<std::pair<uint64_t, uint64_t>>{{0, job_.size}}) {
    for (uint64_t off = begin; off < end; off += block_) {
      pieces_.push_back(
          {off, static_cast<size_t>(std::min<uint64_t>(block_, end - off))});
    }
  }
}

absl::StatusOr<size_t> LoadStream::Read(uint64_t k, unsigned char* p) {
  const uint64_t off = pieces_[k].first;
  const size_t want = pieces_[k].second;
  // O_DIRECT needs whole 4 KiB blocks even at the end of the file.
  const size_t ask =
      params_.direct ? std::min(block_, (want + 4095) / 4096 * 4096) : want;
  size_t got = 0;
  while (got < want) {
    ASSIGN_OR_RETURN(size_t n, file_->Read(off + got, p + got, ask - got));
    if (n == 0) {
      return absl::DataLossError(absl::StrCat(
          job_.path, ": unexpected end of file at byte ", off + got));
    }
    got += n;
  }
  return want;
}

void LoadStream::CheckSegment(size_t i) {
  const SegmentJob& s = job_.segments[i];
  if (!mismatch_.ok() || !s.has_expected) return;
  const uint64_t read = (*sums_.done)[i];
  if (read == s.expected) {
    out_->checked_bytes += s.length;
    return;
  }
  mismatch_ = absl::DataLossError(absl::StrCat(
      "checksum mismatch in ", job_.path,
      LocateMismatch(ctx_, job_, params_, s), " (segment of tensor ",
      TensorName(job_, s), " at tensor byte ", s.tensor_offset,
      absl::StrFormat(", %s expected %016x, read %016x)",
                      Name(params_.checksum), s.expected, read)));
}

absl::Status LoadStream::Verify(uint64_t k, const unsigned char* p, size_t n) {
  if (out_->first_byte_seconds < 0) {
    out_->first_byte_seconds = SecondsSince(ctx_.start);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t off = pieces_[k].first;
  if (job_.ranges) {
    RETURN_IF_ERROR(CheckRange(job_, params_.stream_key, off, p, n));
    out_->checked_bytes += n;
  } else {
    const auto check = [this](size_t i) { CheckSegment(i); };
    for (size_t done = 0; done < n;) {  // 64 KiB at a time, as a save does
      const size_t m = std::min<size_t>(64 << 10, n - done);
      sums_.Feed(off + done, p + done, m, check);
      RETURN_IF_ERROR(mismatch_);
      done += m;
    }
  }
  out_->data_seconds += SecondsSince(t0);
  if (params_.device != nullptr) {  // verified on the host, then copied
    const auto t1 = std::chrono::steady_clock::now();
    if (kept_) {  // only the bytes the rank keeps, one after another
      RETURN_IF_ERROR(
          kept_->CopyIn(off, p, n, *params_.device, &out_->copy_bytes));
    } else {
      RETURN_IF_ERROR(params_.device->CopyIn(off, p, n));
      out_->copy_bytes += n;
    }
    out_->copy_seconds += SecondsSince(t1);
  }
  out_->bytes += n;
  if (ctx_.progress) ctx_.progress->fetch_add(n, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::Status LoadStream::Serial() {
  for (uint64_t k = 0; k < pieces_.size(); ++k) {
    RETURN_IF_ERROR(CheckAbort(ctx_, job_));
    ASSIGN_OR_RETURN(size_t n, Read(k, buffer_.data()));
    RETURN_IF_ERROR(Verify(k, buffer_.data(), n));
  }
  return absl::OkStatus();
}

absl::Status LoadStream::Pipelined() {
  const uint64_t blocks = pieces_.size();
  BlockRing ring(buffer_.data(), block_, BufferBlocks(params_.queue_depth));
  const size_t readers = static_cast<size_t>(std::min<uint64_t>(
      file_->ConcurrentReads() ? params_.queue_depth : 1, blocks));
  std::atomic<uint64_t> next{0};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < readers; ++i) {
    threads.emplace_back([&, tally = CurrentIoTally()] {
      ScopedIoTally scope(tally);  // its requests count for this file
      for (;;) {
        const uint64_t k = next.fetch_add(1);
        if (k >= blocks) return;
        unsigned char* p = ring.AcquireFree(k);
        if (p == nullptr) return;  // the verifier stopped
        absl::StatusOr<size_t> n = Read(k, p);
        ring.Publish(k, n.ok() ? *n : 0, n.status());
        if (!n.ok()) return;
      }
    });
  }
  absl::Status status;
  for (uint64_t k = 0; k < blocks && status.ok(); ++k) {
    status = CheckAbort(ctx_, job_);
    if (!status.ok()) break;
    BlockRing::Ready r = ring.WaitReady(k);
    status = r.data == nullptr ? absl::InternalError("block ring stopped")
                               : r.status;
    if (status.ok()) status = Verify(k, r.data, r.len);
    ring.Release(k);
  }
  ring.Stop();
  for (auto& t : threads) t.join();
  return status;
}

absl::Status LoadStream::Finish() {
  if (kept_ && out_->copy_bytes - copied_before_ != kept_->bytes()) {
    return absl::InternalError(
        absl::StrCat(job_.path, ": ", out_->copy_bytes - copied_before_,
                     " bytes reached the rank's memory, not the ",
                     kept_->bytes(), " it keeps of the ranges read"));
  }
  out_->last_byte_seconds = SecondsSince(ctx_.start);
  RETURN_IF_ERROR(file_->Close());
  out_->done_seconds = SecondsSince(ctx_.start);
  return absl::OkStatus();
}

}  // namespace ckpt
