#include "coordinator/checkpoint/disk_match.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "coordinator/checkpoint/metadata_json.h"
#include "coordinator/steps.h"

namespace ckpt {
namespace {

constexpr int kEmpty = -1;  // no committed step with a .metadata
constexpr int kNone = -2;   // a .metadata with no rank of this plan
constexpr int kMixed = -3;  // ranks of more than one saved index

std::string Holding(int holds) {
  if (holds >= 0) return absl::StrCat("what index ", holds, " saved");
  if (holds == kMixed) return "ranks of several indexes";
  if (holds == kNone) return "no rank of this checkpoint";
  return "no committed step";
}

}  // namespace

absl::StatusOr<DiskMatch> MatchDisksToIndexes(
    const CheckpointPlan& plan, const std::vector<StepListing>& listings,
    const std::vector<NodeClient*>& nodes, const std::string& dir) {
  DiskMatch m;
  const size_t n = nodes.size();
  for (size_t j = 0; j < n; ++j) m.order.push_back(j);
  if (n < 2 || listings.size() != n) return m;
  std::vector<int> holds(n, kEmpty);
  uint64_t step = 0;
  bool foreign = false;  // a disk holds another index's ranks
  for (size_t i = 0; i < n; ++i) {
    const auto& l = listings[i];
    if (l.metadata_step == 0) continue;
    step = l.metadata_step;
    auto meta = ParseMetadata(l.newest_metadata, "");
    // Not this plan's layout: CheckedMetadata says what differs.
    if (!meta.ok() || meta->layout != plan.layout) return m;
    std::set<uint32_t> saved_by;
    for (const auto& [key, sum] : meta->sums) {
      const uint32_t rank = std::get<0>(key);
      if (rank < plan.ranks.size()) saved_by.insert(plan.ranks[rank].node);
    }
    holds[i] = saved_by.empty()       ? kNone
               : saved_by.size() == 1 ? static_cast<int>(*saved_by.begin())
                                      : kMixed;
    foreign = foreign || holds[i] != static_cast<int>(i);
  }
  // Every disk holds its own index's files, or none (then the run stages a
  // checkpoint, or CheckedMetadata says what is missing).
  if (!foreign) return m;
  std::vector<int> holder(n, kEmpty);  // saved index -> position
  bool matched = true;
  for (size_t i = 0; i < n; ++i) {
    if (holds[i] < 0 || static_cast<size_t>(holds[i]) >= n ||
        holder[holds[i]] != kEmpty) {
      matched = false;
      continue;
    }
    holder[holds[i]] = static_cast<int>(i);
  }
  if (!matched) {
    std::vector<std::string> what;
    for (size_t i = 0; i < n; ++i) {
      what.push_back(absl::StrCat(nodes[i]->Who(), ": ", Holding(holds[i])));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "node-local load of ", StepUri(dir, step),
        ": the nodes' disks do not hold one saved node index each (",
        absl::StrJoin(what, "; "),
        "). Expected the load on the machines the save ran on, one node "
        "per machine"));
  }
  for (size_t j = 0; j < n; ++j) m.order[j] = static_cast<size_t>(holder[j]);
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<size_t>(holds[i]) == i) continue;
    m.identity = false;
    m.moves.push_back(absl::StrCat(nodes[i]->Who(), " loads what index ",
                                   holds[i], " saved"));
  }
  return m;
}

}  // namespace ckpt
