#include "sweep/sweep_runs.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/files.h"
#include "common/log.h"
#include "coordinator/coordinator.h"
#include "coordinator/environment.h"
#include "sweep/sweep_dir.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// The run ids of a prepare's earlier attempts (kAttemptsFile in `dir`),
// then `run_id` recorded after them, through a temporary and a rename.
std::vector<std::string> RecordAttempt(const std::string& dir,
                                       const std::string& run_id) {
  const std::string file = (fs::path(dir) / kAttemptsFile).string();
  std::vector<std::string> earlier;
  auto text = ReadRegularFile(file, kMaxAttemptsBytes, "a prepare's attempts");
  if (text.ok()) {
    earlier = ParseAttempts(*text);
  } else if (!absl::IsNotFound(text.status())) {
    LOG_WARN("sweep: %s", text.status().message());
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  absl::Status wrote = WriteFileAtomically(
      file, absl::StrCat(absl::StrJoin(earlier, "\n"),
                         earlier.empty() ? "" : "\n", run_id, "\n"));
  if (!wrote.ok()) LOG_WARN("sweep: %s", wrote.message());
  return earlier;
}

// Moves run_dir's result.json aside as `name`, when there is one.
void SetResultAside(const std::string& run_dir, const char* name) {
  std::error_code ec;
  fs::rename(fs::path(run_dir) / "result.json", fs::path(run_dir) / name, ec);
}

}  // namespace

std::vector<std::string> ParseAttempts(const std::string& text) {
  std::vector<std::string> ids;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const bool id = !line.empty() && line.size() <= 64 &&
                    std::all_of(line.begin(), line.end(), [](char c) {
                      return absl::ascii_isalnum(c) || c == '-';
                    });
    if (id) ids.emplace_back(line);
  }
  if (ids.size() > kMaxAttempts) {
    ids.erase(ids.begin(), ids.end() - kMaxAttempts);
  }
  return ids;
}

SweepRuns::SweepRuns(const SweepPlan& plan, std::string dir, RunFn run,
                     InterruptedFn interrupted)
    : plan_(plan),
      dir_(std::move(dir)),
      run_(std::move(run)),
      signal_(std::move(interrupted)) {}

absl::Status SweepRuns::Serve(const WatchInterrupts& watch) {
  const Config& first = plan_.checked[0].config;
  if (plan_.max_nodes > 1) {
    auto f = StartFleet(first.control, plan_.max_nodes, NewRunId(), watch);
    if (!f.ok()) return f.status();
    fleet_ = std::move(*f);
  } else if (first.control.coordinator_health_port > 0) {
    auto h = HealthServer::Start(first.control.coordinator_health_port,
                                 "control.coordinator_health_port");
    if (!h.ok()) return absl::InvalidArgumentError(h.status().message());
    health_ = std::move(*h);
  }
  return absl::OkStatus();
}

void SweepRuns::RunAll() {
  for (size_t i = 0; i < plan_.runs.size(); ++i) {
    const std::string run_dir = (fs::path(dir_) / plan_.runs[i].name).string();
    if (fs::exists(fs::path(run_dir) / "result.json")) {
      if (FinishedOk(run_dir)) {
        ++done_before_;
        continue;
      }
      // A failed run is run again; its result is kept beside.
      SetResultAside(run_dir, "result.failed.json");
    }
    if (interrupted_ = signal_(); !interrupted_.empty()) return;
    if (!RunOne(i, run_dir)) return;
  }
}

bool SweepRuns::RunOne(size_t i, const std::string& run_dir) {
  const SweepRun& run = plan_.runs[i];
  const Config& config = plan_.checked[i].config;
  LOG_INFO("sweep run %d/%zu: %s", run.index + 1, plan_.runs.size(), run.name);
  SweepRunTarget target;
  target.index = i;
  target.dir = run_dir;
  if (fleet_) {
    const size_t k = static_cast<size_t>(config.cluster.num_nodes);
    target.nodes.assign(fleet_->nodes.begin(), fleet_->nodes.begin() + k);
    target.clocks.assign(fleet_->clocks.begin(), fleet_->clocks.begin() + k);
  } else {
    if (!local_) {
      local_ = std::make_unique<LocalNodeClient>(0, HostName(),
                                                 config.run.progress_interval);
    }
    local_->set_progress_interval(config.run.progress_interval);
    target.nodes = {local_.get()};
  }
  if (!Prepare(i, target)) {
    // A signal during the prepare stops the sweep, as during a run.
    if (interrupted_ = signal_(); !interrupted_.empty()) return false;
    ++failed_;
    return lost_node_.empty();
  }
  const int code = run_(target);
  if (interrupted_ = signal_(); !interrupted_.empty()) {
    // The signal stops the loop. The run it reached is set aside (a
    // resume runs it again); one that had finished before it (the signal
    // came between its result and this check) is kept: it must not run
    // twice.
    if (!FinishedOk(run_dir)) {
      SetResultAside(run_dir, "result.interrupted.json");
    } else if (code != 0) {
      ++failed_;
    }
    return false;
  }
  if (code != 0) ++failed_;
  if (code == ToInt(ExitCode::kInterrupted)) {
    // No signal: a node was lost. The runs after this one would fail at
    // once for want of it.
    lost_node_ = run.name;
    return false;
  }
  return true;
}

bool SweepRuns::Prepare(size_t i, const SweepRunTarget& run) {
  const CheckedRun& checked = plan_.checked[i];
  if (!checked.prepare) return true;
  // On node-local disks each node holds its own copy: a point on more
  // nodes needs the copies the others lack.
  const std::string key =
      checked.config.storage.node_local
          ? absl::StrCat(checked.dataset, " on ",
                         checked.config.cluster.num_nodes, " node(s)")
          : checked.dataset;
  auto it = prepared_.find(key);
  if (it != prepared_.end()) return it->second;
  SweepRunTarget target = run;
  target.prepare = true;
  target.dir = (fs::path(dir_) / "prepare" / plan_.runs[i].name).string();
  LOG_INFO("sweep: the dataset of run %s first: %s", plan_.runs[i].name,
           checked.dataset);
  SetResultAside(target.dir, "result.previous.json");
  // Recorded before it runs: an attempt killed with its process (no
  // result.json) is known to the next.
  target.run_id = NewRunId();
  target.take_over = RecordAttempt(target.dir, target.run_id);
  const int code = run_(target);
  if (code == ToInt(ExitCode::kInterrupted) && signal_().empty()) {
    lost_node_ = "prepare/" + plan_.runs[i].name;  // a node lost: see RunOne
  }
  const bool made = code == 0;
  if (!made) {
    LOG_ERROR(
        "sweep: no dataset at %s (%s/result.json says why); the runs that "
        "read it are not run",
        checked.dataset, target.dir);
  }
  prepared_[key] = made;
  return made;
}

void SweepRuns::StopServing(ExitCode end, const std::string& reason) {
  if (fleet_) fleet_->server->Shutdown(end, reason);
}

}  // namespace ckpt
