// The checkpoint workload's run (run.workload=checkpoint): its preflight
// (the save directory writable, a restore path's newest committed step of
// this model), then save rounds (a claimed step each, run.num_save_calls of
// them), then load rounds (the step this run committed, else the newest
// committed one under the restore path, else one written untimed first;
// resharded when its layout differs from this run's plan), each a
// CheckpointRound (coordinator/checkpoint/round_runner.h) through the
// round protocol.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RUN_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RUN_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/checkpoint/checkpoint_plan.h"
#include "common/inspection.h"
#include "coordinator/checkpoint/metadata_json.h"
#include "coordinator/checkpoint/reshard.h"
#include "coordinator/checkpoint/round_runner.h"
#include "coordinator/run_workload.h"

namespace ckpt {

// What a short checkpoint round asks for instead.
inline constexpr std::string_view kLargerCheckpoint =
    "a larger checkpoint (NUM_LAYERS, model.name) or more ranks";

class CheckpointRun : public RunWorkload {
 public:
  // `plan`: this one instead of the configuration's (a tool's own, e.g.
  // bench/coordination_bench.cc's tiny one); none = made from the run's
  // configuration at its preflight.
  explicit CheckpointRun(std::optional<CheckpointPlan> plan = std::nullopt)
      : plan_(std::move(plan)) {}

  absl::Status Preflight(RunContext& ctx, RunResult* result) override;
  absl::Status Run(RunContext& ctx, RunResult* result) override;

 private:
  // This run's plan (made once, from the run's configuration, unless
  // given), what its steps hold told to `ctx`.
  absl::StatusOr<const CheckpointPlan*> Plan(RunContext& ctx);
  absl::Status RunSaves(RunContext& ctx, const CheckpointPlan& plan,
                        RunResult* result);
  absl::Status RunLoads(RunContext& ctx, const CheckpointPlan& plan,
                        RunResult* result);
  // A load-only run without a committed step: one saved untimed first.
  absl::StatusOr<uint64_t> Stage(RunContext& ctx, const CheckpointPlan& plan,
                                 RunResult* result,
                                 const std::vector<StepListing>& listings);

  std::optional<CheckpointPlan> plan_;
};

// What each step of `plan` holds, by node (RunContext::set_step_files).
std::vector<StepFile> StepFilesOf(const CheckpointPlan& plan);
// The checkpoint's plan for the run's configuration (its model, cluster
// and sharding), what each of its steps holds told to `ctx` (cleanup): for
// the checkpoint's own runs and those embedded in another workload's. Its
// memory bound is the one the configuration's Planning checked before any
// node was asked (coordinator/checkpoint/checkpoint_planning.h), not
// checked again.
absl::StatusOr<CheckpointPlan> PlanRunCheckpoints(RunContext& ctx);

// A checkpoint round of this run (`save` or a load), with the next round
// id: for the checkpoint's own rounds and those it runs embedded in another
// workload's (EpochSaves).
RoundSpec NewRoundSpec(RunContext& ctx, bool save, int index,
                       const std::string& dir, uint64_t step, uint64_t seed);

// Node-local disks: puts each node where its disk's files are (the
// context's nodes and `listings` reordered so that node j holds what index
// j saved), noting it; an error when the disks do not hold one index each.
// Round results then list the nodes in that order, each by its own index.
absl::Status MatchDisks(RunContext& ctx, const CheckpointPlan& plan,
                        std::vector<StepListing>* listings,
                        const std::string& dir, RunResult* result);
// Parses the newest .metadata of each listing, refuses one of another
// model than `plan`'s, and merges the segment checksums.
absl::StatusOr<CheckpointMetadata> CheckedMetadata(
    const RunContext& ctx, const CheckpointPlan& plan,
    const std::vector<StepListing>& listings, const std::string& dir);
// A resharded restore's plan: the .metadata's file map (listings of shared
// storage: one owner) under this run's `plan`, timed.
absl::StatusOr<ReshardPlan> PlanResharded(
    const RunContext& ctx, const CheckpointPlan& plan,
    const std::vector<StepListing>& listings, const std::string& dir,
    const CheckpointMetadata& meta);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RUN_H_
