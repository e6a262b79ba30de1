#include "node/checkpoint/file_io.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/cuda.h"
#include "common/status_macros.h"
#include "node/checkpoint/load_stream.h"
#include "node/checkpoint/save_stream.h"
#include "node/checkpoint/shard_memory.h"
#include "node/checkpoint/stream_util.h"

namespace ckpt {

absl::Status CheckAbort(const TransferContext& ctx, const FileJob& job) {
  if (ctx.abort != nullptr && ctx.abort->load(std::memory_order_relaxed)) {
    return absl::AbortedError(
        absl::StrCat("aborted while transferring ", job.path));
  }
  return absl::OkStatus();
}

void SegmentSums::Feed(uint64_t offset, const unsigned char* p, size_t len,
                       const std::function<void(size_t)>& on_done) {
  while (len > 0 && seg < job.segments.size()) {
    const SegmentJob& s = job.segments[seg];
    uint64_t seg_end = s.file_offset + s.length;
    size_t take =
        static_cast<size_t>(std::min<uint64_t>(len, seg_end - offset));
    sum->Update(p, take);
    p += take;
    offset += take;
    len -= take;
    if (offset == seg_end) {
      done->push_back(sum->Value());
      sum->Reset();
      if (on_done) on_done(seg);
      ++seg;
    }
  }
}

void SegmentSums::FeedBlock(uint64_t offset, const unsigned char* p, size_t len,
                            const std::function<void(size_t)>& on_done) {
  for (size_t done_bytes = 0; done_bytes < len;) {
    const size_t m = std::min<size_t>(64 << 10, len - done_bytes);
    Feed(offset + done_bytes, p + done_bytes, m, on_done);
    done_bytes += m;
  }
}

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
  return SaveStream(ctx, job, params, buffer, stats, out).Run();
}

absl::Status LoadFile(const TransferContext& ctx, const FileJob& job,
                      const IoParams& params, AlignedBuffer& buffer,
                      OpStats* stats, FileOutcome* out) {
  return LoadStream(ctx, job, params, buffer, stats, out).Run();
}

}  // namespace ckpt
