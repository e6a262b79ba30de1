#include "coordinator/checkpoint/reshard.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ckpt {
namespace {

// A saved segment, found by tensor.
struct Held {
  uint64_t tensor_offset = 0;
  uint64_t length = 0;
  uint32_t saved = 0;    // index into the saved files
  uint32_t segment = 0;  // index into its segments
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
  // Per tensor, the saved segments by tensor offset.
  std::vector<std::vector<Held>> held(target.tensors.size());
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
  // By start; then without pieces wholly inside earlier ones (copies: the
  // union is unchanged), so the ends rise too and can be searched.
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
  plan.ranks.reserve(target.ranks.size());
  for (const RankPlan& r : target.ranks) {
    ReshardRank rr;
    rr.rank = r.rank;
    // saved file -> ranges read there; whole segments already taken.
    std::map<uint32_t, std::vector<SegmentPlan>> reads;
    std::set<std::pair<uint32_t, uint32_t>> taken;
    // (saved file, file offset of a whole segment read) -> the span of it
    // the rank owns (segments mode).
    std::map<std::pair<uint32_t, uint64_t>, std::pair<uint64_t, uint64_t>>
        owned;
    for (const FilePlan& f : r.files) {
      for (const SegmentPlan& want : f.segments) {
        const uint64_t end = want.tensor_offset + want.length;
        rr.needed += want.length;
        const auto& h = held[want.tensor];
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
          const SegmentPlan& s = saved[it->saved].file.segments[it->segment];
          if (mode == ReshardReads::kSegments) {
            if (taken.insert({it->saved, it->segment}).second) {
              reads[it->saved].push_back(s);
            }
            const uint64_t from = s.file_offset + (at - it->tensor_offset);
            const uint64_t to =
                s.file_offset + (std::min(end, held_end) - it->tensor_offset);
            auto [span, fresh] =
                owned.try_emplace({it->saved, s.file_offset}, from, to);
            if (!fresh) {
              // Another want of this rank in the same saved segment: its
              // wants of a tensor are adjacent pieces of one chunk, so the
              // spans meet; a gap would put bytes it does not own in its
              // memory.
              auto& [b, e] = span->second;
              if (from > e || to < b) {
                return absl::InternalError(absl::StrCat(
                    where, ": rank ", r.rank, " owns two separate parts of ",
                    "one saved segment of tensor ",
                    target.tensors[want.tensor].name,
                    "; a whole-segment read cannot keep only them"));
              }
              b = std::min(b, from);
              e = std::max(e, to);
            }
          } else {
            const uint64_t from = at, to = std::min(end, held_end);
            reads[it->saved].push_back(
                {want.tensor, from, to - from,
                 s.file_offset + (from - it->tensor_offset)});
          }
          at = std::min(end, held_end);
        }
        if (at < end) {
          return absl::DataLossError(absl::StrCat(
              where, ": tensor ", target.tensors[want.tensor].name, " bytes [",
              at, ", ", gap_end, "), which rank ", r.rank,
              " owns in the new layout, are in none of the checkpoint's ",
              saved.size(), " files"));
        }
      }
    }
    for (auto& [f, ranges] : reads) {
      std::sort(ranges.begin(), ranges.end(),
                [](const SegmentPlan& a, const SegmentPlan& b) {
                  return a.file_offset < b.file_offset;
                });
      uint64_t last_end = UINT64_MAX;
      std::vector<std::pair<uint64_t, uint64_t>> keep;
      keep.reserve(ranges.size());
      for (const auto& s : ranges) {
        rr.read += s.length;
        if (s.file_offset != last_end) ++rr.reads;
        last_end = s.file_offset + s.length;
        keep.push_back(
            mode == ReshardReads::kSegments
                ? owned.at({f, s.file_offset})
                : std::pair{s.file_offset, s.file_offset + s.length});
      }
      rr.files.push_back({f, std::move(ranges), std::move(keep)});
    }
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
