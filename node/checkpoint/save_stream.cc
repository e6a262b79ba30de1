#include "node/checkpoint/save_stream.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "absl/strings/numbers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "node/checkpoint/block_ring.h"
#include "node/checkpoint/shard_memory.h"
#include "node/pattern.h"
#include "node/storage/io_tally.h"

namespace ckpt {
namespace {

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
// the interrupt watchdog (main/signal_watcher.h) must end.
void TestHangInSave() {
  static const bool hang =
      std::getenv("CKPTBENCH_TEST_HANG_IN_SAVE") != nullptr;
  if (!hang) return;
  int fds[2];
  if (pipe(fds) != 0) return;
  // What a test waits for before it signals: the thread is in the call.
  LOG_WARN("test hook: a save's file thread blocks in read(2) now");
  char c;
  while (true) {
    const ssize_t n = read(fds[0], &c, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) return;
  }
}

}  // namespace

SaveStream::SaveStream(const TransferContext& ctx, const FileJob& job,
                       const IoParams& params, AlignedBuffer& buffer,
                       OpStats* stats, FileOutcome* out)
    : FileStream(ctx, job, params, buffer, stats, out),
      blocks_((job.size + block_ - 1) / block_) {}

size_t SaveStream::Length(uint64_t k) const {
  return static_cast<size_t>(
      std::min<uint64_t>(block_, job_.size - k * block_));
}

absl::Status SaveStream::Run() {
  out_->start_seconds = SecondsSince(ctx_.start);
  TestHangInSave();
  WriteOptions wo;
  wo.direct = params_.direct;
  ASSIGN_OR_RETURN(file_, storage_.OpenWrite(job_.path, wo));
  if (params_.source != nullptr) {
    RETURN_IF_ERROR(FromSource());
    return Finish();
  }
  // A backend that lends its part buffer (S3) has the bytes generated where
  // they are sent from, its own uploads in flight overlapping the
  // generation; a block that would straddle two of its parts is made in
  // ours and copied. Without a lender, queue depth 0 takes turns here.
  // Bytes copied out of a device go through this file's (pinned) blocks,
  // not into a lending backend's pageable part buffers.
  const bool lends = params_.device == nullptr && blocks_ > 0 &&
                     file_->BorrowBuffer(Length(0)) != nullptr;
  if (lends || BufferBlocks(params_.queue_depth) == 1) {
    RETURN_IF_ERROR(InTurns(lends));
  } else {
    RETURN_IF_ERROR(Pipelined());
  }
  return Finish();
}

absl::Status SaveStream::Write(const unsigned char* p, size_t n) {
  RETURN_IF_ERROR(file_->Append(p, n));
  if (out_->first_byte_seconds < 0) {
    out_->first_byte_seconds = SecondsSince(ctx_.start);
  }
  out_->bytes += n;
  if (ctx_.progress) ctx_.progress->fetch_add(n, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::Status SaveStream::FromSource() {
  // Staged already, so the bytes stay put: written from where they are (a
  // lending backend copies them into its part buffer) and checksummed
  // 64 KiB at a time. With queue_depth > 0 a writer thread writes while
  // this one checksums, as a generated save overlaps the two.
  const unsigned char* source = params_.source;
  auto checksum = [&](uint64_t k) {
    const auto t0 = std::chrono::steady_clock::now();
    sums_.FeedBlock(k * block_, source + k * block_, Length(k));
    out_->data_seconds += SecondsSince(t0);
  };
  if (BufferBlocks(params_.queue_depth) == 1) {
    for (uint64_t k = 0; k < blocks_; ++k) {
      RETURN_IF_ERROR(CheckAbort(ctx_, job_));
      checksum(k);
      RETURN_IF_ERROR(Write(source + k * block_, Length(k)));
    }
    return absl::OkStatus();
  }
  absl::Status written;
  std::thread writer([&, tally = CurrentIoTally()] {
    ScopedIoTally scope(tally);  // its requests count for this file
    for (uint64_t k = 0; k < blocks_ && written.ok(); ++k) {
      written = CheckAbort(ctx_, job_);
      if (written.ok()) written = Write(source + k * block_, Length(k));
    }
  });
  for (uint64_t k = 0; k < blocks_; ++k) checksum(k);
  writer.join();
  return written;
}

absl::Status SaveStream::InTurns(bool lends) {
  for (uint64_t k = 0; k < blocks_; ++k) {
    RETURN_IF_ERROR(CheckAbort(ctx_, job_));
    unsigned char* p = lends ? file_->BorrowBuffer(Length(k)) : nullptr;
    if (p == nullptr) p = buffer_.data();
    RETURN_IF_ERROR(Produce(k, p));
    RETURN_IF_ERROR(Write(p, Length(k)));
  }
  return absl::OkStatus();
}

absl::Status SaveStream::Pipelined() {
  BlockRing ring(buffer_.data(), block_, BufferBlocks(params_.queue_depth));
  absl::Status write_status;
  std::thread writer([&, tally = CurrentIoTally()] {
    ScopedIoTally scope(tally);  // its requests count for this file
    for (uint64_t k = 0; k < blocks_; ++k) {
      BlockRing::Ready r = ring.WaitReady(k);
      if (r.data == nullptr) return;  // the generator stopped
      write_status = Write(r.data, r.len);
      if (!write_status.ok()) {
        ring.Stop();
        return;
      }
      ring.Release(k);
    }
  });
  absl::Status gen_status;
  for (uint64_t k = 0; k < blocks_; ++k) {
    gen_status = CheckAbort(ctx_, job_);
    if (!gen_status.ok()) break;
    unsigned char* p = ring.AcquireFree(k);
    if (p == nullptr) break;  // the writer failed
    gen_status = Produce(k, p);
    if (!gen_status.ok()) break;
    ring.Publish(k, Length(k));
  }
  if (!gen_status.ok()) ring.Stop();
  writer.join();
  RETURN_IF_ERROR(write_status);
  return gen_status;
}

void SaveStream::Generate(uint64_t k, unsigned char* p) {
  if (TestGenerateDelayMs() > 0) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(TestGenerateDelayMs()));
  }
  constexpr size_t kSpan = 64 << 10;
  const uint64_t off = k * block_;
  const size_t n = Length(k);
  for (size_t done = 0; done < n;) {
    const size_t m = std::min(kSpan, n - done);
    FillPattern(params_.stream_key, off + done, p + done, m);
    sums_.Feed(off + done, p + done, m);
    done += m;
  }
}

absl::Status SaveStream::Produce(uint64_t k, unsigned char* p) {
  if (params_.device == nullptr) {
    const auto t0 = std::chrono::steady_clock::now();
    Generate(k, p);
    out_->data_seconds += SecondsSince(t0);
    return absl::OkStatus();
  }
  const uint64_t off = k * block_;
  const size_t n = Length(k);
  const auto t0 = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(params_.device->CopyOut(off, p, n));
  out_->copy_seconds += SecondsSince(t0);
  out_->copy_bytes += n;
  const auto t1 = std::chrono::steady_clock::now();
  sums_.Feed(off, p, n);
  out_->data_seconds += SecondsSince(t1);
  return absl::OkStatus();
}

absl::Status SaveStream::Finish() {
  out_->last_byte_seconds = SecondsSince(ctx_.start);
  if (params_.fsync) {
    RETURN_IF_ERROR(file_->Sync());
  }
  RETURN_IF_ERROR(file_->Close());
  out_->done_seconds = SecondsSince(ctx_.start);
  return absl::OkStatus();
}

}  // namespace ckpt
