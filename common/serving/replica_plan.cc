#include "common/serving/replica_plan.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/text.h"

namespace ckpt {
namespace {

void AddFile(RankReads* rank, size_t file, std::vector<ByteRange> ranges) {
  FileReads f;
  f.file = file;
  f.ranges = CoalesceRanges(std::move(ranges));
  for (const ByteRange& r : f.ranges) f.bytes += r.length;
  if (f.ranges.empty()) return;
  rank->bytes += f.bytes;
  rank->ranges += f.ranges.size();
  rank->files.push_back(std::move(f));
}

// Every rank's slices of every tensor, file by file; a rank's ranges kept
// below kMaxRankRanges as they are made.
absl::Status PlanSlices(const std::vector<PlannedFile>& files, int ranks,
                        uint64_t head_dim, ReplicaPlan* plan) {
  int next_unknown = 0;
  std::vector<uint64_t> held(static_cast<size_t>(ranks), 0);
  for (size_t i = 0; i < files.size(); ++i) {
    const PlannedFile& f = files[i];
    std::vector<std::vector<ByteRange>> per_rank(static_cast<size_t>(ranks));
    for (const StTensor& t : f.header.tensors) {
      const TpRole role = TpRoleOf(t.name, t.shape.size());
      ++plan->role_tensors[static_cast<size_t>(role)];
      const int owner = role == TpRole::kUnknown ? next_unknown++ % ranks : 0;
      for (int r = 0; r < ranks; ++r) {
        auto slice =
            TpSlice(t, role, f.header.DataStart(), ranks, r, owner, head_dim);
        if (!slice.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(
              EscapeForTerminal(f.name), ": ", slice.status().message()));
        }
        const size_t k = static_cast<size_t>(r);
        held[k] += slice->size();
        if (held[k] > kMaxRankRanges) {
          return absl::ResourceExhaustedError(absl::StrCat(
              EscapeForTerminal(f.name), ": rank ", r, "'s share is more than ",
              kMaxRankRanges, " byte ranges; expected fewer, larger pieces"));
        }
        per_rank[k].insert(per_rank[k].end(), slice->begin(), slice->end());
      }
    }
    for (size_t r = 0; r < per_rank.size(); ++r) {
      AddFile(&plan->ranks[r], i, std::move(per_rank[r]));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ReplicaPlan> PlanReplica(const std::vector<PlannedFile>& files,
                                        ReplicaSplit split, int ranks,
                                        uint64_t head_dim) {
  if (ranks < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(ranks, " ranks; expected at least 1"));
  }
  ReplicaPlan plan;
  plan.split = split;
  plan.ranks.resize(static_cast<size_t>(ranks));
  for (const PlannedFile& f : files) {
    if (f.size > kMaxModelBytes - plan.model_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat(EscapeForTerminal(f.name), " (", f.size,
                       " bytes) takes the model's files past ", kMaxModelBytes,
                       " bytes together; expected a model of at most 1 PiB"));
    }
    plan.model_bytes += f.size;
  }
  if (split == ReplicaSplit::kWholeFiles) {
    std::vector<uint64_t> sizes;
    for (const PlannedFile& f : files) sizes.push_back(f.size);
    const std::vector<int> owner = WholeFilesPerRank(sizes, ranks);
    for (size_t i = 0; i < files.size(); ++i) {
      AddFile(&plan.ranks[static_cast<size_t>(owner[i])], i,
              {{0, files[i].size}});
    }
  } else {
    RETURN_IF_ERROR(PlanSlices(files, ranks, head_dim, &plan));
  }
  for (const RankReads& r : plan.ranks) plan.read_bytes += r.bytes;
  return plan;
}

}  // namespace ckpt
