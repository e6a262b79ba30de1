#include "coordinator/checkpoint/reshard.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace ckpt {
namespace {

// A saved segment, found by tensor.
struct Held {
  uint64_t tensor_offset = 0;
  uint64_t length = 0;
  uint32_t saved = 0;    // index into the saved files
  uint32_t segment = 0;  // index into its segments
};
using HeldByTensor = std::vector<std::vector<Held>>;

// Per tensor, the saved segments by tensor offset: sorted by start, then
// without pieces wholly inside earlier ones (copies: the union is
// unchanged), so the ends rise too and can be searched. A segment that does
// not fit its file or names no tensor of `target` is DataLoss.
absl::StatusOr<HeldByTensor> IndexSaved(const CheckpointPlan& target,
                                        const std::vector<SavedFile>& saved,
                                        const std::string& where) {
  HeldByTensor held(target.tensors.size());
  for (uint32_t f = 0; f < saved.size(); ++f) {
    const auto& segs = saved[f].file.segments;
    for (uint32_t k = 0; k < segs.size(); ++k) {
      const SegmentPlan& s = segs[k];
      if (s.tensor >= held.size() || s.length == 0 ||
          s.length > saved[f].file.size ||
          s.file_offset > saved[f].file.size - s.length) {
        return absl::DataLossError(
            absl::StrCat(where, ": ", saved[f].file.name, " segment ", k,
                         " does not fit the checkpoint (tensor index ",
                         s.tensor, " of ", held.size(), ", bytes [",
                         s.file_offset, ", ", s.file_offset + s.length,
                         ") of a ", saved[f].file.size, "-byte file)"));
      }
      held[s.tensor].push_back({s.tensor_offset, s.length, f, k});
    }
  }
  for (auto& h : held) {
    std::sort(h.begin(), h.end(), [](const Held& a, const Held& b) {
      return a.tensor_offset < b.tensor_offset ||
             (a.tensor_offset == b.tensor_offset && a.length > b.length);
    });
    std::vector<Held> kept;
    uint64_t reach = 0;
    for (const Held& x : h) {
      if (!kept.empty() && x.tensor_offset + x.length <= reach) continue;
      reach = x.tensor_offset + x.length;
      kept.push_back(x);
    }
    h = std::move(kept);
  }
  return held;
}

// What one rank of the new layout reads: each wanted segment found in the
// saved ones (Want), then the reads per saved file in file order (Finish).
class RankReads {
 public:
  RankReads(const CheckpointPlan& target, const std::vector<SavedFile>& saved,
            const HeldByTensor& held, ReshardReads mode, uint32_t rank,
            const std::string& where)
      : target_(target),
        saved_(saved),
        held_(held),
        mode_(mode),
        where_(where) {
    rr_.rank = rank;
  }

  absl::Status Want(const SegmentPlan& want) {
    const uint64_t end = want.tensor_offset + want.length;
    rr_.needed += want.length;
    const auto& h = held_[want.tensor];
    // The first saved segment ending after the wanted start.
    auto it = std::upper_bound(h.begin(), h.end(), want.tensor_offset,
                               [](uint64_t v, const Held& x) {
                                 return v < x.tensor_offset + x.length;
                               });
    uint64_t at = want.tensor_offset;  // covered up to here
    uint64_t gap_end = end;            // where a gap found ends
    for (; it != h.end() && it->tensor_offset < end && at < end; ++it) {
      const uint64_t held_end = it->tensor_offset + it->length;
      if (held_end <= at) continue;  // a copy of bytes already covered
      if (it->tensor_offset > at) {  // a gap: not saved
        gap_end = it->tensor_offset;
        break;
      }
      const uint64_t to = std::min(end, held_end);
      if (mode_ == ReshardReads::kSegments) {
        RETURN_IF_ERROR(Whole(*it, at, to, want));
      } else {
        const SegmentPlan& s = Saved(*it);
        reads_[it->saved].push_back({want.tensor, at, to - at,
                                     s.file_offset + (at - it->tensor_offset)});
      }
      at = to;
    }
    if (at < end) {
      return absl::DataLossError(absl::StrCat(
          where_, ": tensor ", target_.tensors[want.tensor].name, " bytes [",
          at, ", ", gap_end, "), which rank ", rr_.rank,
          " owns in the new layout, are in none of the checkpoint's ",
          saved_.size(), " files"));
    }
    return absl::OkStatus();
  }

  ReshardRank Finish() && {
    for (auto& [f, ranges] : reads_) {
      std::sort(ranges.begin(), ranges.end(),
                [](const SegmentPlan& a, const SegmentPlan& b) {
                  return a.file_offset < b.file_offset;
                });
      uint64_t last_end = UINT64_MAX;
      std::vector<std::pair<uint64_t, uint64_t>> keep;
      keep.reserve(ranges.size());
      for (const auto& s : ranges) {
        rr_.read += s.length;
        if (s.file_offset != last_end) ++rr_.reads;
        last_end = s.file_offset + s.length;
        keep.push_back(
            mode_ == ReshardReads::kSegments
                ? owned_.at({f, s.file_offset})
                : std::pair{s.file_offset, s.file_offset + s.length});
      }
      rr_.files.push_back({f, std::move(ranges), std::move(keep)});
    }
    return std::move(rr_);
  }

 private:
  const SegmentPlan& Saved(const Held& h) const {
    return saved_[h.saved].file.segments[h.segment];
  }

  // Segments mode: the whole saved segment is read (once), and the rank
  // keeps the tensor bytes [at, to) of it.
  absl::Status Whole(const Held& h, uint64_t at, uint64_t to,
                     const SegmentPlan& want) {
    const SegmentPlan& s = Saved(h);
    if (taken_.insert({h.saved, h.segment}).second) {
      reads_[h.saved].push_back(s);
    }
    const uint64_t from = s.file_offset + (at - h.tensor_offset);
    const uint64_t until = s.file_offset + (to - h.tensor_offset);
    auto [span, fresh] =
        owned_.try_emplace({h.saved, s.file_offset}, from, until);
    if (fresh) return absl::OkStatus();
    // Another want of this rank in the same saved segment: its wants of a
    // tensor are adjacent pieces of one chunk, so the spans meet; a gap
    // would put bytes it does not own in its memory.
    auto& [b, e] = span->second;
    if (from > e || until < b) {
      return absl::InternalError(absl::StrCat(
          where_, ": rank ", rr_.rank, " owns two separate parts of ",
          "one saved segment of tensor ", target_.tensors[want.tensor].name,
          "; a whole-segment read cannot keep only them"));
    }
    b = std::min(b, from);
    e = std::max(e, until);
    return absl::OkStatus();
  }

  const CheckpointPlan& target_;
  const std::vector<SavedFile>& saved_;
  const HeldByTensor& held_;
  const ReshardReads mode_;
  const std::string& where_;
  ReshardRank rr_;
  // saved file -> ranges read there; whole segments already taken.
  std::map<uint32_t, std::vector<SegmentPlan>> reads_;
  std::set<std::pair<uint32_t, uint32_t>> taken_;
  // (saved file, file offset of a whole segment read) -> the span of it
  // the rank owns (segments mode).
  std::map<std::pair<uint32_t, uint64_t>, std::pair<uint64_t, uint64_t>> owned_;
};

}  // namespace

absl::StatusOr<ReshardPlan> PlanReshard(const CheckpointPlan& target,
                                        std::vector<SavedFile> saved,
                                        ReshardReads mode,
                                        const std::string& where) {
  ReshardPlan plan;
  plan.mode = mode;
  plan.to_world = target.world_size;
  plan.to_layout = target.layout;
  ASSIGN_OR_RETURN(const HeldByTensor held, IndexSaved(target, saved, where));
  plan.ranks.reserve(target.ranks.size());
  for (const RankPlan& r : target.ranks) {
    RankReads reads(target, saved, held, mode, r.rank, where);
    for (const FilePlan& f : r.files) {
      for (const SegmentPlan& want : f.segments) {
        RETURN_IF_ERROR(reads.Want(want));
      }
    }
    ReshardRank rr = std::move(reads).Finish();
    plan.needed += rr.needed;
    plan.read += rr.read;
    plan.ranks.push_back(std::move(rr));
  }
  plan.saved = std::move(saved);
  return plan;
}

ReshardResult SummarizeReshard(const ReshardPlan& plan,
                               const CheckpointPlan& target) {
  ReshardResult r;
  r.mode = plan.mode;
  r.from_world = plan.from_world;
  r.to_world = plan.to_world;
  r.from_layout = plan.from_layout;
  r.to_layout = plan.to_layout;
  r.bytes_needed = plan.needed;
  r.bytes_read = plan.read;
  r.read_amplification = plan.Amplification();
  r.planning_seconds = plan.planning_seconds;
  for (size_t i = 0; i < plan.ranks.size(); ++i) {
    const ReshardRank& pr = plan.ranks[i];
    ReshardRankResult rr;
    rr.rank = pr.rank;
    rr.node =
        i < target.ranks.size() ? static_cast<int>(target.ranks[i].node) : 0;
    rr.bytes_needed = pr.needed;
    rr.bytes_read = pr.read;
    rr.files = pr.files.size();
    rr.reads = pr.reads;
    for (const auto& f : pr.files) {
      const uint32_t from = plan.saved[f.saved].rank;
      if (std::find(rr.from_ranks.begin(), rr.from_ranks.end(), from) ==
          rr.from_ranks.end()) {
        rr.from_ranks.push_back(from);
      }
    }
    std::sort(rr.from_ranks.begin(), rr.from_ranks.end());
    r.ranks.push_back(std::move(rr));
  }
  return r;
}

}  // namespace ckpt
