// The run's checkpoint steps: the listing helpers (steps.h), and claiming,
// cleaning up after a failed save and retiring the run's older steps
// (RunContext).
#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "coordinator/run_context.h"
#include "coordinator/steps.h"

namespace ckpt {

std::string StepUri(const std::string& dir, uint64_t step) {
  return JoinPath(dir, StepDirName(step));
}

uint64_t MaxStep(const std::vector<StepListing>& listings) {
  uint64_t m = 0;
  for (const auto& l : listings) {
    for (const auto& [step, committed] : l.steps) m = std::max(m, step);
  }
  return m;
}

uint64_t CommonNewest(const std::vector<StepListing>& listings) {
  if (listings.empty()) return 0;
  uint64_t step = listings[0].newest_committed;
  for (const auto& l : listings) {
    if (l.newest_committed != step) return 0;
  }
  return step;
}

CleanupJob RunContext::CleanupOf(const std::string& dir, size_t owner) const {
  CleanupJob job;
  job.run_id = run_id_;
  job.steps_uri = ForNode(dir, nodes_[owner]->index());
  job.backend = backend_;
  // Shared storage: one node removes every rank's files.
  for (const StepFile& f : step_files_) {
    if (config_.storage.node_local && f.node != owner) continue;
    job.file_names.push_back(f.name);
  }
  for (const auto& n : claim_names_) job.file_names.push_back(n);
  return job;
}

ClaimJob RunContext::ClaimOf(const std::string& dir, size_t owner,
                             uint64_t step) const {
  ClaimJob job;
  job.run_id = run_id_;
  job.steps_uri = ForNode(dir, nodes_[owner]->index());
  job.step = step;
  job.backend = backend_;
  return job;
}

absl::StatusOr<uint64_t> RunContext::ClaimStep(const std::string& dir,
                                               uint64_t step) {
  constexpr int kAttempts = 12;
  std::vector<std::string> taken;
  std::mt19937_64 rng(std::random_device{}());
  for (int attempt = 0; attempt < kAttempts && !interrupted_; ++attempt) {
    if (step > kMaxStep) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no step number is left under ", dir, ": a step at or near ",
          StepUri(dir, kMaxStep),
          " is there, and that is the largest step ckptbench writes (2^53 - "
          "1, exact in JSON). Expected a CKPT_DIR_PATH with room: remove "
          "those steps or use another path"));
    }
    std::vector<std::pair<size_t, std::string>> won;  // (owner, claim name)
    std::string lost;
    for (size_t i = 0; i < StorageOwners() && lost.empty(); ++i) {
      auto rep = nodes_[i]->Claim(ClaimOf(dir, i, step));
      absl::Status failed = rep.status();
      if (IsNodeError(failed)) {
        failed = absl::FailedPreconditionError(
            absl::StrCat("claiming ", StepUri(dir, step), " on node ",
                         nodes_[i]->index(), ": ", failed.message()));
      }
      if (failed.ok() && rep->taken) lost = rep->holder;
      if (failed.ok() && !rep->taken) won.push_back({i, rep->claim_name});
      if (!failed.ok() || !lost.empty()) {
        for (const auto& [owner, name] : won) {
          ClaimJob rel = ClaimOf(dir, owner, step);
          rel.release = true;
          rel.claim_name = name;
          auto released = nodes_[owner]->Claim(rel);
          const std::string why(released.status().message());
          if (!why.empty()) {
            unreleased_claims_.push_back(absl::StrCat(
                StepUri(ForNode(dir, nodes_[owner]->index()), step), "/", name,
                config_.storage.node_local
                    ? absl::StrCat(" on node ", nodes_[owner]->index())
                    : std::string(),
                ": the claim of a step this run lost (", why, ")"));
          }
        }
        RETURN_IF_ERROR(failed);
      }
    }
    if (lost.empty()) {
      for (const auto& w : won) claim_names_.insert(w.second);
      written_steps_.insert(step);
      return step;
    }
    taken.push_back(lost);
    LOG_INFO("%s is taken (%s); trying a later step", StepDirName(step), lost);
    // Two runs that both lost one step must not collide on every next one.
    std::this_thread::sleep_for(std::chrono::milliseconds(
        rng() % (20 * (uint64_t{1} << std::min(attempt, 5)) + 1)));
    ASSIGN_OR_RETURN(auto listings, InspectAll(dir, false, false));
    // Spread: runs that lost together must not all try the same next step
    // (by listing, two racing runs can both lose every time).
    step = std::max(step + 1, MaxStep(listings) + 1) +
           rng() % static_cast<uint64_t>(attempt + 1);
  }
  if (interrupted_) return absl::CancelledError("interrupted");
  // The last few reasons: enough to see who was there.
  if (taken.size() > 2) taken.erase(taken.begin(), taken.end() - 2);
  return absl::AbortedError(absl::StrCat(
      "could not claim a step under ", dir, " in ", kAttempts,
      " attempts: other runs' claims were there each time (last: ",
      absl::StrJoin(taken, "; "),
      "). Expected fewer runs writing this path at once, or a CKPT_DIR_PATH "
      "of each run's own"));
}

void RunContext::RemoveFailedStep(const std::string& dir, uint64_t step,
                                  RunResult* result) {
  for (size_t i = 0; i < StorageOwners(); ++i) {
    CleanupJob req = CleanupOf(dir, i);
    req.remove_steps.push_back(step);
    req.abort_uploads = true;
    // Shared storage: any node that still answers can remove the files.
    std::string why;
    const size_t tries = config_.storage.node_local ? 1 : nodes_.size();
    bool removed = false;
    for (size_t k = 0; k < tries && !removed; ++k) {
      const size_t n = config_.storage.node_local ? i : k;
      auto rep = nodes_[n]->Cleanup(req);
      if (rep.ok()) {
        removed = true;
        if (rep->aborted_uploads > 0) {
          result->notes.push_back(absl::StrCat(
              "aborted ", rep->aborted_uploads, " unfinished upload(s) of ",
              StepUri(dir, step), " left by the failed save"));
        }
      } else {
        why = std::string(rep.status().message());
      }
    }
    if (!removed) {
      result->leftovers.push_back(
          absl::StrCat(StepUri(ForNode(dir, nodes_[i]->index()), step),
                       config_.storage.node_local
                           ? absl::StrCat(" on node ", nodes_[i]->index())
                           : std::string(),
                       ": the failed save's files (", why, ")"));
    }
  }
}

void RunContext::NoteCommitted(uint64_t step) {
  saved_ = true;
  committed_step_ = std::max(committed_step_, step);
}

absl::Status RunContext::RetireSteps(bool finished, RunResult* result) {
  result->leftovers.insert(result->leftovers.end(), unreleased_claims_.begin(),
                           unreleased_claims_.end());
  if (!saved_ || config_.run.keep_all_steps) return absl::OkStatus();
  if (finished) return RemoveOldSteps(result);
  // Retention runs only after a run that finished: say what stays.
  std::vector<std::string> older;
  for (uint64_t step : written_steps_) {
    if (step < committed_step_) older.push_back(StepDirName(step));
  }
  if (!older.empty()) {
    result->notes.push_back(absl::StrCat(
        "the run did not finish, so older steps it committed were not "
        "removed: ",
        absl::StrJoin(older, ", "), " under ", config_.StepsPath(),
        " (kept with ", StepDirName(committed_step_), ", its newest)"));
  }
  return absl::OkStatus();
}

absl::Status RunContext::RemoveOldSteps(RunResult* result) {
  const std::string dir = config_.StepsPath();
  ASSIGN_OR_RETURN(auto listings, InspectAll(dir, false, false));
  int removed = 0, foreign = 0;
  for (size_t i = 0; i < listings.size(); ++i) {
    CleanupJob req = CleanupOf(dir, i);
    for (const auto& [step, committed] : listings[i].steps) {
      // This run keeps the newest step it committed itself: another run's
      // newer step must never make it delete all of its own.
      if (!committed || step >= committed_step_) continue;
      if (written_steps_.count(step)) {
        req.remove_steps.push_back(step);
      } else {
        ++foreign;
      }
    }
    if (req.remove_steps.empty()) continue;
    auto rep = nodes_[i]->Cleanup(req);
    if (IsNodeError(rep.status())) {
      return absl::InternalError(absl::StrCat("removing old steps on node ",
                                              nodes_[i]->index(), ": ",
                                              rep.status().message()));
    }
    RETURN_IF_ERROR(rep.status());
    removed += static_cast<int>(req.remove_steps.size());
  }
  if (removed > 0) {
    result->notes.push_back(absl::StrCat(
        "kept ", StepDirName(committed_step_),
        ", the newest step this run "
        "committed under ",
        dir, "; removed ", removed, " older committed step(s) it wrote",
        config_.storage.node_local ? " across the nodes' disks" : "",
        " (run.keep_all_steps=true keeps them)"));
  }
  if (foreign > 0) {
    result->notes.push_back(
        absl::StrCat("left ", foreign, " older committed step(s) under ", dir,
                     " alone: this run did not write them"));
  }
  return absl::OkStatus();
}

}  // namespace ckpt
