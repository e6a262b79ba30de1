#include "node/checkpoint/file_ranges.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "node/checkpoint/shard_memory.h"
#include "node/pattern.h"

namespace ckpt {
namespace {

// A resharded segment's kept span of file bytes [begin, end): what the
// coordinator said the rank owns of it, or all of it.
std::pair<uint64_t, uint64_t> Kept(const SegmentJob& s) {
  if (s.keep_length == 0) return {s.file_offset, s.file_offset + s.length};
  return {s.keep_offset, s.keep_offset + s.keep_length};
}

}  // namespace

uint64_t NeededBytes(const FileJob& job) {
  if (!job.ranges) return job.size;
  uint64_t n = 0;
  for (const auto& s : job.segments) n += s.length;
  return n;
}

uint64_t KeptBytes(const FileJob& job) {
  if (!job.ranges) return job.size;
  uint64_t n = 0;
  for (const auto& s : job.segments) n += Kept(s).second - Kept(s).first;
  return n;
}

std::vector<std::pair<uint64_t, uint64_t>> ReadExtents(const FileJob& job,
                                                       bool direct) {
  if (!job.ranges) return {{0, job.size}};
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& s : job.segments) {
    uint64_t begin = s.file_offset, end = s.file_offset + s.length;
    if (direct) {
      begin = begin / 4096 * 4096;
      end = std::min(job.size, (end + 4095) / 4096 * 4096);
    }
    if (begin >= end) continue;
    if (!out.empty() && begin <= out.back().second) {
      out.back().second = std::max(out.back().second, end);
    } else {
      out.push_back({begin, end});
    }
  }
  return out;
}

std::string TensorName(const FileJob& job, const SegmentJob& s) {
  if (job.tensor_names && s.tensor < job.tensor_names->size()) {
    return (*job.tensor_names)[s.tensor];
  }
  return absl::StrCat("#", s.tensor);
}

absl::Status CheckRange(const FileJob& job, uint64_t stream_key, uint64_t off,
                        const unsigned char* p, size_t n) {
  for (size_t done = 0; done < n;) {  // 64 KiB at a time, still in cache
    const size_t m = std::min<size_t>(64 << 10, n - done);
    const size_t bad =
        FirstPatternMismatch(stream_key, off + done, p + done, m);
    if (bad < m) {
      const uint64_t at = off + done + bad;
      std::string tensor;
      for (const auto& s : job.segments) {
        if (at >= s.file_offset && at < s.file_offset + s.length) {
          tensor =
              absl::StrCat(" (tensor ", TensorName(job, s), " at tensor byte ",
                           s.tensor_offset + (at - s.file_offset), ")");
        }
      }
      return absl::DataLossError(absl::StrCat(
          "byte ", at, " of ", job.path, tensor, " is not the one rank ",
          job.rank,
          " wrote there (a resharded restore checks every byte it reads "
          "against the writer's)"));
    }
    done += m;
  }
  return absl::OkStatus();
}

absl::Status CheckRangesJob(const FileJob& job) {
  uint64_t last_end = 0;
  for (size_t i = 0; i < job.segments.size(); ++i) {
    const SegmentJob& s = job.segments[i];
    const auto [keep_begin, keep_end] = Kept(s);
    const char* wrong =
        s.file_offset < last_end ? "overlaps or precedes the one before it"
        : s.file_offset + s.length > job.size ? "ends past the file's end"
        : keep_begin < s.file_offset || keep_end > s.file_offset + s.length
            ? "keeps bytes outside itself"
            : nullptr;
    if (wrong != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          job.path, ": range ", i, " [", s.file_offset, ", ",
          s.file_offset + s.length, ") (keeps [", keep_begin, ", ", keep_end,
          ")) ", wrong, "; the coordinator's plan is inconsistent"));
    }
    last_end = s.file_offset + s.length;
  }
  return absl::OkStatus();
}

KeptLayout::KeptLayout(const FileJob& job) : job_(job) {
  at_.reserve(job.segments.size());
  for (const auto& s : job.segments) {
    at_.push_back(bytes_);
    bytes_ += Kept(s).second - Kept(s).first;
  }
}

absl::Status KeptLayout::CopyIn(uint64_t off, const unsigned char* p, size_t n,
                                ShardMemory& memory, uint64_t* copied) const {
  // The segments are sorted by file offset and disjoint, so are their kept
  // spans: the first one ending past `off`, then on while they start in it.
  auto it = std::upper_bound(
      job_.segments.begin(), job_.segments.end(), off,
      [](uint64_t v, const SegmentJob& s) { return v < Kept(s).second; });
  for (; it != job_.segments.end(); ++it) {
    const auto [begin, end] = Kept(*it);
    if (begin >= off + n) break;
    const uint64_t from = std::max(begin, off), to = std::min(end, off + n);
    const size_t i = static_cast<size_t>(it - job_.segments.begin());
    RETURN_IF_ERROR(memory.CopyIn(at_[i] + (from - begin), p + (from - off),
                                  static_cast<size_t>(to - from)));
    *copied += to - from;
  }
  return absl::OkStatus();
}

}  // namespace ckpt
