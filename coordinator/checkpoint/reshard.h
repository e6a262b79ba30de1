// A resharded restore (N -> M): the checkpoint was saved in one layout
// (world size, files per rank, sharding) and is loaded in another. Each
// loading rank owns byte ranges of tensors under the new plan; this maps
// them onto the saved files (their segments, from the .metadata) and says
// what each rank reads: exactly those ranges ("ranges"), or every saved
// segment holding any of them, whole ("segments", as PyTorch DCP's
// FileSystemReader reads each stored item whole and narrows it in
// memory). Read amplification is bytes read / bytes needed. Pure.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_RESHARD_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_RESHARD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/checkpoint/checkpoint_plan.h"
#include "common/kinds.h"
#include "coordinator/checkpoint/checkpoint_results.h"

namespace ckpt {

// A file of the saved checkpoint, as its .metadata lists it.
struct SavedFile {
  uint32_t rank = 0;  // the rank that wrote it (its bytes are that rank's)
  FilePlan file;
};

// The byte ranges one loading rank reads from one saved file: sorted by
// file offset, disjoint; each names the tensor bytes it holds. `keep[i]`
// is the span [begin, end) of file bytes in ranges[i] the rank owns: all
// of it in "ranges" mode, the part of a whole saved segment it needs in
// "segments" mode (what lands in its memory; the rest was only read).
struct ReshardFileRead {
  uint32_t saved = 0;  // index into ReshardPlan::saved
  std::vector<SegmentPlan> ranges;
  std::vector<std::pair<uint64_t, uint64_t>> keep;
};

struct ReshardRank {
  uint32_t rank = 0;
  uint64_t needed = 0;  // bytes the rank owns under the new plan
  uint64_t read = 0;    // bytes it reads
  uint64_t reads = 0;   // contiguous reads (adjacent ranges of a file join)
  std::vector<ReshardFileRead> files;
};

struct ReshardPlan {
  ReshardReads mode = ReshardReads::kRanges;
  int from_world = 0, to_world = 0;
  int from_ranks_per_node = 1;  // the saving run's (whose node wrote what)
  std::string from_layout, to_layout;
  std::vector<SavedFile> saved;
  std::vector<ReshardRank> ranks;  // one per rank of the new plan, in order
  uint64_t needed = 0, read = 0;
  double planning_seconds = 0;  // set by the caller that timed PlanReshard
  double Amplification() const {
    return needed == 0 ? 0 : static_cast<double>(read) / needed;
  }
};

// `target`: the loading run's plan (each rank's segments are what it owns);
// `saved`: the checkpoint's files. `where` names the .metadata in errors.
// A tensor byte the new plan needs that no saved file holds is DataLoss.
absl::StatusOr<ReshardPlan> PlanReshard(const CheckpointPlan& target,
                                        std::vector<SavedFile> saved,
                                        ReshardReads mode,
                                        const std::string& where);

// The plan as result.json reports it (per rank: node from `target`).
ReshardResult SummarizeReshard(const ReshardPlan& plan,
                               const CheckpointPlan& target);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_RESHARD_H_
