#include "coordinator/coordinator.h"

#include <unistd.h>

#include <chrono>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "coordinator/checkpoint/disk_match.h"
#include "coordinator/client_check.h"
#include "coordinator/json_codec.h"
#include "coordinator/reply_check.h"
#include "coordinator/steps.h"
#include "wire/backend_codec.h"

namespace ckpt {

std::string NewRunId() {
  std::random_device rd;
  auto now = std::chrono::system_clock::now().time_since_epoch().count();
  return absl::StrFormat("%08x-%04x", static_cast<uint32_t>(rd() ^ now),
                         static_cast<uint32_t>(getpid()) & 0xffff);
}

Coordinator::Coordinator(const Config& config, const CheckpointPlan& plan,
                         std::vector<NodeClient*> nodes,
                         ProgressPrinter* progress, std::string run_id)
    : config_(config),
      plan_(plan),
      nodes_(std::move(nodes)),
      progress_(progress),
      run_id_(run_id.empty() ? NewRunId() : std::move(run_id)),
      backend_(BackendOptionsOf(config)) {}

RoundSpec Coordinator::NewSpec(bool save, int index, const std::string& dir,
                               uint64_t step, uint64_t seed) {
  RoundSpec spec;
  spec.run_id = run_id_;
  spec.round_id = next_round_id_++;
  spec.save = save;
  spec.index = index;
  spec.step = step;
  spec.seed = seed;
  spec.step_uri = StepUri(dir, step);
  spec.dir = dir;
  spec.interrupted = &interrupted_;
  return spec;
}

absl::Status Coordinator::Preflight(RunResult* result) {
  result->run_id = run_id_;
  RETURN_IF_ERROR(OpenOnEveryNode());
  if (config_.run.workload != Workload::kCheckpoint) {
    return PreflightDataset();
  }
  if (config_.DoLoad() && config_.load.rank_shift > 0 &&
      config_.load.rank_shift >= plan_.world_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "load.rank_shift (CKPT_RANK_SHIFT) = ", config_.load.rank_shift,
        ": expected less than the world size, ", plan_.world_size,
        " (nodes x ranks per node)"));
  }
  if (const int shift = EffectiveRankShift(config_, plan_);
      config_.DoLoad() && shift > 0) {
    result->notes.push_back(absl::StrCat(
        "loads read other ranks' shards: load.rank_shift = ", shift,
        " (rank r loads what rank (r + ", shift, ") mod ", plan_.world_size,
        " wrote; rounds[].nodes[].read_from_nodes says whose each node read)"));
  }
  if (config_.cluster.accelerator == Accelerator::kGpu) {
    // Every node, before any round: a node without a usable GPU fails here.
    for (auto* n : nodes_) {
      InspectJob job;
      job.run_id = run_id_;
      job.accelerator = Accelerator::kGpu;
      job.backend = backend_;
      auto rep = n->Inspect(job);
      if (IsNodeError(rep.status())) {
        return WithPrefix(rep.status(), absl::StrCat(n->Who(), ": "));
      }
      RETURN_IF_ERROR(rep.status());
      result->notes.push_back(absl::StrCat(n->Who(), " GPUs: ", rep->gpus));
    }
  }
  if (config_.DoSave() && config_.run.num_save_calls > 0) {
    auto listing = InspectAll(config_.CheckpointsPath(), /*probe=*/true, false);
    if (!listing.ok()) {
      return absl::Status(
          listing.status().code(),
          absl::StrCat("storage.path (CKPT_DIR_PATH) is not usable: ",
                       listing.status().message()));
    }
  }
  if (config_.DoLoad() && config_.run.num_load_calls > 0 &&
      !(config_.DoSave() && config_.run.num_save_calls > 0 &&
        config_.RestorePath() == config_.CheckpointsPath())) {
    ASSIGN_OR_RETURN(auto listings,
                     InspectAll(config_.RestorePath(), false, true));
    RETURN_IF_ERROR(MatchDisks(&listings, config_.RestorePath(), result));
    RETURN_IF_ERROR(CheckedMetadata(listings, config_.RestorePath()).status());
    if (CommonNewest(listings) == 0) {
      // Staging will write there: make sure it can.
      auto probe = InspectAll(config_.RestorePath(), /*probe=*/true, false);
      if (!probe.ok()) {
        return absl::Status(
            probe.status().code(),
            absl::StrCat(
                "storage.restore_path (CKPT_RESTORE_PATH) is not usable: ",
                probe.status().message()));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Coordinator::PutResult(const std::string& dir_uri,
                                    const std::string& name,
                                    const std::string& data, bool check_only,
                                    bool overwrite) {
  if (nodes_.empty()) return absl::UnavailableError("no node to write it");
  PutResultJob job{dir_uri, name, data, check_only, overwrite, backend_};
  auto put = nodes_[0]->PutResult(job);
  const std::string where =
      absl::StrCat(JoinPath(dir_uri, name), " (node ", nodes_[0]->index(), ", ",
                   nodes_[0]->host(), ")");
  if (IsNodeError(put.status())) {
    // The node could not write it: worth another try, whatever its kind.
    return absl::UnavailableError(
        absl::StrCat(where, ": ", put.status().message()));
  }
  ASSIGN_OR_RETURN(const PutResultOutcome rep, std::move(put));
  if (rep.exists) {
    return absl::AlreadyExistsError(absl::StrCat(
        where,
        " is there from an earlier run; refusing to replace it (expected a "
        "results prefix of this run's own, or --overwrite)"));
  }
  return absl::OkStatus();
}

void Coordinator::Interrupt(const std::string& reason) {
  std::vector<NodeClient*> nodes;
  {
    std::lock_guard<std::mutex> lock(interrupt_mu_);
    interrupt_reason_ = reason;
    nodes = nodes_;  // MatchDisks may reorder them meanwhile
  }
  interrupted_ = true;
  for (auto* n : nodes) (void)n->Abort(run_id_, reason);
}

ExitCode Coordinator::FailureCode() const {
  if (interrupted_) return ExitCode::kInterrupted;
  for (const NodeClient* n : nodes_) {
    if (n->lost()) return ExitCode::kInterrupted;
  }
  return ExitCode::kFailed;
}

void Coordinator::NoteListings(RunResult* result) const {
  // The first few by name; thousands of them would bury the summary.
  constexpr size_t kNamed = 10;
  auto note = [&](const std::set<std::string>& paths, const auto& say) {
    size_t n = 0;
    for (const auto& p : paths) {
      if (n++ == kNamed) {
        result->notes.push_back(absl::StrCat("... and ", paths.size() - kNamed,
                                             " more like the above"));
        break;
      }
      result->notes.push_back(say(p));
    }
  };
  note(ignored_steps_, [](const std::string& p) {
    return absl::StrCat("ignored ", p, ": a step number past ", kMaxStep,
                        ", the largest ckptbench writes (exact in JSON); not "
                        "one of its steps, left alone");
  });
  note(partial_steps_, [](const std::string& p) {
    return absl::StrCat(
        p,
        " holds no .metadata: a save in progress, or one a run killed "
        "mid-save left behind; left alone. If no run is writing it, remove it "
        "(on S3 abort its uploads first: ckptbench uploads ",
        p, " --abort)");
  });
}

void Coordinator::Publish(RunResult* result) {
  // Each round is copied once, when it is first published (rounds carry
  // every file's record: copying them all after every round added up to
  // the square of the rounds); the rest is small and copied whole.
  std::vector<RoundResult> rounds;
  rounds.swap(result->rounds);
  RunResult head = *result;
  result->rounds.swap(rounds);
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  std::vector<RoundResult> published = std::move(snapshot_.rounds);
  for (size_t k = published.size(); k < result->rounds.size(); ++k) {
    published.push_back(result->rounds[k]);
  }
  snapshot_ = std::move(head);
  snapshot_.rounds = std::move(published);
}

RunResult Coordinator::Snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  return snapshot_;
}

absl::Status Coordinator::Run(RunResult* result) {
  result->run_id = run_id_;
  Publish(result);
  absl::Status s;
  if (config_.run.workload == Workload::kDatagen) {
    s = RunDatagen(result);
  } else if (config_.run.workload == Workload::kDataload) {
    s = RunDataload(result);
  } else {
    if (config_.DoSave()) s = RunSaves(result);
    if (s.ok() && config_.DoLoad()) s = RunLoads(result);
  }
  result->leftovers.insert(result->leftovers.end(), unreleased_claims_.begin(),
                           unreleased_claims_.end());
  NoteListings(result);
  if ((!s.ok() || interrupted_) && saved_ && !config_.run.keep_all_steps) {
    // Retention runs only after a run that finished: say what stays.
    std::vector<std::string> older;
    for (uint64_t step : written_steps_) {
      if (step < committed_step_) older.push_back(StepDirName(step));
    }
    if (!older.empty()) {
      result->notes.push_back(absl::StrCat(
          "the run did not finish, so older steps it committed were not "
          "removed: ",
          absl::StrJoin(older, ", "), " under ", config_.CheckpointsPath(),
          " (kept with ", StepDirName(committed_step_), ", its newest)"));
    }
  }
  if (interrupted_) {
    std::lock_guard<std::mutex> lock(interrupt_mu_);
    return absl::CancelledError(interrupt_reason_);
  }
  RETURN_IF_ERROR(s);
  if (saved_ && !config_.run.keep_all_steps)
    RETURN_IF_ERROR(RemoveOldSteps(result));
  return absl::OkStatus();
}

void FlagShortPhase(RoundResult* r) {
  if (r->status != RunStatus::kOk || r->staged ||
      r->seconds >= kShortPhaseSeconds) {
    return;
  }
  r->flags.push_back(RoundFlag::kShortPhase);
  const bool checkpoint = r->workload == Workload::kCheckpoint;
  LOG_WARN(
      "%s took %.3f s, under %.0f s: start-up, scheduling and timer noise "
      "are a large share of so short a phase, so its rate says little about "
      "the storage; expected %s",
      RoundName(*r), r->seconds, kShortPhaseSeconds,
      checkpoint ? "a larger checkpoint (NUM_LAYERS, model.name) or more ranks"
                 : "a larger dataset (dataset.samples, dataset.sample_bytes)");
}

}  // namespace ckpt
