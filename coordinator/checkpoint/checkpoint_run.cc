// CheckpointRun (coordinator/checkpoint/checkpoint_run.h): the checkpoint
// workload's preflight, and its save rounds then its load rounds.
#include "coordinator/checkpoint/checkpoint_run.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "coordinator/checkpoint/planner.h"
#include "coordinator/checkpoint/round_runner.h"
#include "coordinator/client_check.h"
#include "coordinator/reply_check.h"
#include "coordinator/steps.h"

namespace ckpt {
namespace {

// A restore path a load-only run reads (or stages into): its newest
// committed step of this model, or room to stage one.
absl::Status CheckRestorePath(RunContext& ctx, const CheckpointPlan& plan,
                              RunResult* result) {
  const Config& config = ctx.config();
  ASSIGN_OR_RETURN(auto listings,
                   ctx.InspectAll(config.RestorePath(), false, true));
  RETURN_IF_ERROR(
      MatchDisks(ctx, plan, &listings, config.RestorePath(), result));
  RETURN_IF_ERROR(
      CheckedMetadata(ctx, plan, listings, config.RestorePath()).status());
  if (CommonNewest(listings) != 0) return absl::OkStatus();
  // Staging will write there: make sure it can.
  auto probe = ctx.InspectAll(config.RestorePath(), /*probe=*/true, false);
  if (!probe.ok()) {
    return absl::Status(
        probe.status().code(),
        absl::StrCat("storage.restore_path (CKPT_RESTORE_PATH) is not usable: ",
                     probe.status().message()));
  }
  return absl::OkStatus();
}

}  // namespace

RoundSpec NewRoundSpec(RunContext& ctx, bool save, int index,
                       const std::string& dir, uint64_t step, uint64_t seed) {
  RoundSpec spec;
  spec.run_id = ctx.run_id();
  const RoundIds ids = ctx.NextRound();
  spec.round_id = ids.round_id;
  spec.save = save;
  spec.index = index;
  spec.step = step;
  spec.seed = seed;
  spec.step_uri = StepUri(dir, step);
  spec.dir = dir;
  spec.interrupted = ids.interrupted;
  return spec;
}

std::vector<StepFile> StepFilesOf(const CheckpointPlan& plan) {
  std::vector<StepFile> files;
  for (const RankPlan& r : plan.ranks) {
    for (const FilePlan& f : r.files) files.push_back({r.node, f.name});
  }
  return files;
}

absl::StatusOr<CheckpointPlan> PlanRunCheckpoints(RunContext& ctx) {
  // The memory bound was checked when the configuration was planned
  // (CheckpointPlanning); checked again here, memory the allocator kept
  // from that plan could refuse the same one.
  ASSIGN_OR_RETURN(
      CheckpointPlan plan,
      MakePlan(PlanOptionsFromConfig(ctx.config()), MemoryBudget{}));
  ctx.set_step_files(StepFilesOf(plan));
  return plan;
}

absl::StatusOr<const CheckpointPlan*> CheckpointRun::Plan(RunContext& ctx) {
  if (plan_) {
    ctx.set_step_files(StepFilesOf(*plan_));
  } else {
    ASSIGN_OR_RETURN(plan_, PlanRunCheckpoints(ctx));
  }
  return &*plan_;
}

absl::Status CheckpointRun::Preflight(RunContext& ctx, RunResult* result) {
  const Config& config = ctx.config();
  const CheckpointOptions& ck = CheckpointOf(config);
  ASSIGN_OR_RETURN(const CheckpointPlan* planned, Plan(ctx));
  const CheckpointPlan& plan = *planned;
  if (ck.DoLoad() && ck.load.rank_shift > 0 &&
      ck.load.rank_shift >= plan.world_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("load.rank_shift (CKPT_RANK_SHIFT) = ", ck.load.rank_shift,
                     ": expected less than the world size, ", plan.world_size,
                     " (nodes x ranks per node)"));
  }
  if (const int shift = EffectiveRankShift(config, plan);
      ck.DoLoad() && shift > 0) {
    result->notes.push_back(absl::StrCat(
        "loads read other ranks' shards: load.rank_shift = ", shift,
        " (rank r loads what rank (r + ", shift, ") mod ", plan.world_size,
        " wrote; rounds[].nodes[].read_from_nodes says whose each node read)"));
  }
  if (config.cluster.accelerator == Accelerator::kGpu) {
    RETURN_IF_ERROR(ctx.CheckGpusOnEveryNode(result));
  }
  if (ck.DoSave() && ck.num_save_calls > 0) {
    auto listing = ctx.InspectAll(config.StepsPath(), /*probe=*/true, false);
    if (!listing.ok()) {
      return absl::Status(
          listing.status().code(),
          absl::StrCat("storage.path (CKPT_DIR_PATH) is not usable: ",
                       listing.status().message()));
    }
  }
  if (ck.DoLoad() && ck.num_load_calls > 0 &&
      !(ck.DoSave() && ck.num_save_calls > 0 &&
        config.RestorePath() == config.StepsPath())) {
    RETURN_IF_ERROR(CheckRestorePath(ctx, plan, result));
  }
  LOG_INFO("run %s: %s, %s per checkpoint, %d node(s) x %d rank(s)",
           ctx.run_id(), plan.model, FormatBytes(plan.total_bytes),
           plan.num_nodes, plan.ranks_per_node);
  return absl::OkStatus();
}

absl::Status CheckpointRun::Run(RunContext& ctx, RunResult* result) {
  ASSIGN_OR_RETURN(const CheckpointPlan* plan, Plan(ctx));
  const CheckpointOptions& ck = CheckpointOf(ctx.config());
  absl::Status s;
  if (ck.DoSave()) s = RunSaves(ctx, *plan, result);
  if (s.ok() && ck.DoLoad()) s = RunLoads(ctx, *plan, result);
  return s;
}

absl::Status CheckpointRun::RunSaves(RunContext& ctx,
                                     const CheckpointPlan& plan,
                                     RunResult* result) {
  const Config& config = ctx.config();
  const CheckpointOptions& ck = CheckpointOf(config);
  if (ck.num_save_calls == 0) return absl::OkStatus();
  const std::string dir = config.StepsPath();
  ASSIGN_OR_RETURN(auto listings, ctx.InspectAll(dir, false, false));
  uint64_t step = MaxStep(listings) + 1;
  RoundRunner runner(config, plan, ctx.nodes(), ctx.progress());
  for (int i = 1; i <= ck.num_save_calls && !ctx.interrupted(); ++i, ++step) {
    ASSIGN_OR_RETURN(step, ctx.ClaimStep(dir, step));
    RoundSpec spec =
        NewRoundSpec(ctx, /*save=*/true, i, dir, step, config.run.seed);
    result->rounds.push_back(runner.Run(spec));
    const RoundResult& r = result->rounds.back();
    if (r.status != RunStatus::kOk) {
      ctx.Publish(result);
      ctx.RemoveFailedStep(dir, step, result);
      return absl::AbortedError(r.error);
    }
    ctx.NoteCommitted(step);
    LOG_INFO("save %d: step-%d, %.3f s, %.1f MiB/s", i, step, r.seconds,
             r.throughput_mib_s);
    FlagShortPhase(&result->rounds.back(), kLargerCheckpoint);
    FlagClientBound(&result->rounds.back());
    ctx.Publish(result);
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> CheckpointRun::Stage(
    RunContext& ctx, const CheckpointPlan& plan, RunResult* result,
    const std::vector<StepListing>& listings) {
  const Config& config = ctx.config();
  const std::string dir = config.RestorePath();
  ASSIGN_OR_RETURN(uint64_t step, ctx.ClaimStep(dir, MaxStep(listings) + 1));
  RoundSpec spec =
      NewRoundSpec(ctx, /*save=*/true, 0, dir, step, config.run.seed);
  spec.staged = true;
  std::string note = absl::StrCat(
      "no committed checkpoint",
      config.storage.node_local ? " common to every node's disk" : "",
      " under ", dir, ": staged ", StepDirName(spec.step),
      " first (untimed, not in the summary)");
  LOG_INFO("%s", note);
  result->notes.push_back(note);
  RoundRunner runner(config, plan, ctx.nodes(), ctx.progress());
  result->rounds.push_back(runner.Run(spec));
  ctx.Publish(result);
  const RoundResult& r = result->rounds.back();
  if (r.status != RunStatus::kOk) {
    ctx.RemoveFailedStep(dir, spec.step, result);
    return absl::AbortedError(absl::StrCat("staging: ", r.error));
  }
  return spec.step;
}

absl::StatusOr<ReshardPlan> PlanResharded(
    const RunContext& ctx, const CheckpointPlan& run_plan,
    const std::vector<StepListing>& listings, const std::string& dir,
    const CheckpointMetadata& meta) {
  const auto t0 = std::chrono::steady_clock::now();
  // One storage owner (shared storage): its .metadata maps every file.
  const auto& l = listings.front();
  const std::string where =
      absl::StrCat(StepUri(dir, l.metadata_step), "/.metadata");
  std::vector<SavedFile> saved;
  RETURN_IF_ERROR(ParseMetadata(l.newest_metadata, where, &saved).status());
  ASSIGN_OR_RETURN(
      auto plan,
      PlanReshard(run_plan, std::move(saved),
                  CheckpointOf(ctx.config()).load.reshard_reads, where));
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

absl::Status CheckpointRun::RunLoads(RunContext& ctx,
                                     const CheckpointPlan& plan,
                                     RunResult* result) {
  const Config& config = ctx.config();
  const CheckpointOptions& ck = CheckpointOf(config);
  if (ck.num_load_calls == 0) return absl::OkStatus();
  const std::string dir = config.RestorePath();
  // A run that saved there loads the step it committed itself, never a
  // newer one a concurrent run committed meanwhile; a staged step likewise.
  uint64_t step = dir == config.StepsPath() ? ctx.committed_step() : 0;
  std::vector<StepListing> listings;
  if (step == 0) {
    ASSIGN_OR_RETURN(listings, ctx.InspectAll(dir, false, true));
    step = CommonNewest(listings);
    if (step == 0) {
      ASSIGN_OR_RETURN(step, Stage(ctx, plan, result, listings));
    }
  }
  // Each owner's .metadata of that step (NotFound where it is missing).
  if (listings.empty() || step != CommonNewest(listings)) {
    ASSIGN_OR_RETURN(listings, ctx.InspectAll(dir, false, true, step));
  }
  RETURN_IF_ERROR(MatchDisks(ctx, plan, &listings, dir, result));
  ASSIGN_OR_RETURN(auto meta, CheckedMetadata(ctx, plan, listings, dir));
  // CheckedMetadata made sure the seed and checksum kind are this run's.
  std::optional<ReshardPlan> reshard;
  if (meta.layout != plan.layout) {
    ASSIGN_OR_RETURN(reshard, PlanResharded(ctx, plan, listings, dir, meta));
    SetReshard(result, SummarizeReshard(*reshard, plan));
    result->notes.push_back(absl::StrCat(
        "resharded restore: ", StepUri(dir, step), " was saved by ",
        reshard->from_world, " ranks and is loaded by ", reshard->to_world,
        " (load.reshard_reads=", std::string(Name(reshard->mode)),
        "): ", absl::StrFormat("%.3f", reshard->Amplification()),
        "x read amplification; see reshard"));
  }
  RoundRunner runner(config, plan, ctx.nodes(), ctx.progress());
  for (int i = 1; i <= ck.num_load_calls && !ctx.interrupted(); ++i) {
    RoundSpec spec = NewRoundSpec(ctx, /*save=*/false, i, dir, step, meta.seed);
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
      ctx.Publish(result);
      return absl::AbortedError(r.error);
    }
    LOG_INFO("load %d: step-%d, %.3f s, %.1f MiB/s, verified (%s)", i, step,
             r.seconds, r.throughput_mib_s, r.cache.method);
    FlagShortPhase(&result->rounds.back(), kLargerCheckpoint);
    FlagClientBound(&result->rounds.back());
    ctx.Publish(result);
  }
  return absl::OkStatus();
}

}  // namespace ckpt
