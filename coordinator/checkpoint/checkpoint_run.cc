// The checkpoint workload's run (run.workload=checkpoint): save rounds
// (RunSaves: a claimed step each, run.num_save_calls of them), then load
// rounds (RunLoads: the step this run committed, else the newest committed
// one under the restore path, else one written untimed first (Stage);
// resharded when its layout differs from this run's plan), each a
// CheckpointRound (coordinator/checkpoint/round_runner.h) through the
// round protocol.
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "coordinator/checkpoint/disk_match.h"
#include "coordinator/checkpoint/round_runner.h"
#include "coordinator/client_check.h"
#include "coordinator/coordinator.h"
#include "coordinator/json_codec.h"
#include "coordinator/steps.h"

namespace ckpt {

absl::Status Coordinator::RunSaves(RunResult* result) {
  if (config_.run.num_save_calls == 0) return absl::OkStatus();
  const std::string dir = config_.CheckpointsPath();
  ASSIGN_OR_RETURN(auto listings, InspectAll(dir, false, false));
  uint64_t step = MaxStep(listings) + 1;
  RoundRunner runner(config_, plan_, nodes_, progress_);
  for (int i = 1; i <= config_.run.num_save_calls && !interrupted_;
       ++i, ++step) {
    ASSIGN_OR_RETURN(step, ClaimStep(dir, step));
    written_steps_.insert(step);
    RoundSpec spec = NewSpec(/*save=*/true, i, dir, step, config_.run.seed);
    result->rounds.push_back(runner.Run(spec));
    const RoundResult& r = result->rounds.back();
    if (r.status != RunStatus::kOk) {
      Publish(result);
      RemoveFailedStep(dir, step, result);
      return absl::AbortedError(r.error);
    }
    saved_ = true;
    committed_step_ = step;
    LOG_INFO("save %d: step-%d, %.3f s, %.1f MiB/s", i, step, r.seconds,
             r.throughput_mib_s);
    FlagShortPhase(&result->rounds.back());
    FlagClientBound(&result->rounds.back());
    Publish(result);
  }
  return absl::OkStatus();
}

absl::Status Coordinator::Stage(RunResult* result,
                                const std::vector<StepListing>& listings) {
  const std::string dir = config_.RestorePath();
  ASSIGN_OR_RETURN(uint64_t step, ClaimStep(dir, MaxStep(listings) + 1));
  written_steps_.insert(step);
  RoundSpec spec = NewSpec(/*save=*/true, 0, dir, step, config_.run.seed);
  spec.staged = true;
  std::string note = absl::StrCat(
      "no committed checkpoint",
      config_.storage.node_local ? " common to every node's disk" : "",
      " under ", dir, ": staged ", StepDirName(spec.step),
      " first (untimed, not in the summary)");
  LOG_INFO("%s", note);
  result->notes.push_back(note);
  RoundRunner runner(config_, plan_, nodes_, progress_);
  result->rounds.push_back(runner.Run(spec));
  Publish(result);
  const RoundResult& r = result->rounds.back();
  if (r.status != RunStatus::kOk) {
    RemoveFailedStep(dir, spec.step, result);
    return absl::AbortedError(absl::StrCat("staging: ", r.error));
  }
  staged_step_ = spec.step;
  return absl::OkStatus();
}

absl::StatusOr<ReshardPlan> Coordinator::PlanResharded(
    const std::vector<StepListing>& listings, const std::string& dir,
    const CheckpointMetadata& meta) {
  const auto t0 = std::chrono::steady_clock::now();
  // One storage owner (shared storage): its .metadata maps every file.
  const auto& l = listings.front();
  const std::string where =
      absl::StrCat(StepUri(dir, l.metadata_step), "/.metadata");
  std::vector<SavedFile> saved;
  RETURN_IF_ERROR(ParseMetadata(l.newest_metadata, where, &saved).status());
  ASSIGN_OR_RETURN(auto plan, PlanReshard(plan_, std::move(saved),
                                          config_.load.reshard_reads, where));
  plan.from_world = meta.world_size;
  plan.from_ranks_per_node = std::max(1, meta.ranks_per_node);
  plan.from_layout = meta.layout;
  plan.planning_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  LOG_INFO(
      "resharded restore: saved by %d ranks, loaded by %d; %s reads, %.3fx "
      "read amplification, planned in %.3f s",
      plan.from_world, plan.to_world, plan.mode, plan.Amplification(),
      plan.planning_seconds);
  return plan;
}

absl::Status Coordinator::RunLoads(RunResult* result) {
  if (config_.run.num_load_calls == 0) return absl::OkStatus();
  const std::string dir = config_.RestorePath();
  // A run that saved there loads the step it committed itself, never a
  // newer one a concurrent run committed meanwhile; a staged step likewise.
  uint64_t step = dir == config_.CheckpointsPath() ? committed_step_ : 0;
  std::vector<StepListing> listings;
  if (step == 0) {
    ASSIGN_OR_RETURN(listings, InspectAll(dir, false, true));
    step = CommonNewest(listings);
    if (step == 0) {
      RETURN_IF_ERROR(Stage(result, listings));
      step = staged_step_;
    }
  }
  // Each owner's .metadata of that step (NotFound where it is missing).
  if (listings.empty() || step != CommonNewest(listings)) {
    ASSIGN_OR_RETURN(listings, InspectAll(dir, false, true, step));
  }
  RETURN_IF_ERROR(MatchDisks(&listings, dir, result));
  ASSIGN_OR_RETURN(auto meta, CheckedMetadata(listings, dir));
  // CheckedMetadata made sure the seed and checksum kind are this run's.
  std::optional<ReshardPlan> reshard;
  if (meta.layout != plan_.layout) {
    ASSIGN_OR_RETURN(reshard, PlanResharded(listings, dir, meta));
    result->reshard = SummarizeReshard(*reshard, plan_);
    result->notes.push_back(absl::StrCat(
        "resharded restore: ", StepUri(dir, step), " was saved by ",
        reshard->from_world, " ranks and is loaded by ", reshard->to_world,
        " (load.reshard_reads=", std::string(Name(reshard->mode)),
        "): ", absl::StrFormat("%.3f", reshard->Amplification()),
        "x read amplification; see reshard"));
  }
  RoundRunner runner(config_, plan_, nodes_, progress_);
  for (int i = 1; i <= config_.run.num_load_calls && !interrupted_; ++i) {
    RoundSpec spec = NewSpec(/*save=*/false, i, dir, step, meta.seed);
    if (reshard) spec.reshard = &*reshard;
    spec.expected = [&meta](uint32_t rank, uint32_t file, uint32_t seg,
                            uint64_t* out) {
      auto it = meta.sums.find({rank, file, seg});
      if (it == meta.sums.end()) return false;
      *out = it->second;
      return true;
    };
    result->rounds.push_back(runner.Run(spec));
    const RoundResult& r = result->rounds.back();
    if (r.status != RunStatus::kOk) {
      Publish(result);
      return absl::AbortedError(r.error);
    }
    LOG_INFO("load %d: step-%d, %.3f s, %.1f MiB/s, verified (%s)", i, step,
             r.seconds, r.throughput_mib_s, r.cache.method);
    FlagShortPhase(&result->rounds.back());
    FlagClientBound(&result->rounds.back());
    Publish(result);
  }
  return absl::OkStatus();
}

}  // namespace ckpt
