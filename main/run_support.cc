#include "main/run_support.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/exit_code.h"
#include "common/fd_reserve.h"
#include "common/files.h"
#include "common/log.h"
#include "coordinator/config_checks.h"
#include "coordinator/environment.h"
#include "coordinator/json_codec.h"
#include "coordinator/summary.h"
#include "coordinator/workload_registry.h"

namespace ckpt {
namespace {

void FillConfig(const LoadedConfig& loaded, RunResult* r) {
  for (const auto& k : ConfigKeys()) {
    ResolvedKey rk;
    rk.key = k.key;
    rk.env = k.env;
    rk.value = k.get(loaded.config);  // secret keys redact in get()
    auto it = loaded.sources.find(k.key);
    rk.source = it == loaded.sources.end() ? "default" : it->second;
    r->config.push_back(rk);
  }
  r->workload = loaded.config.run.workload;
}

// Results that could not go to their object-store URI: a new file in the
// working directory, so nothing measured is lost.
bool WriteFallback(const RunResult& r) {
  std::string path = absl::StrCat(
      "ckptbench-result-",
      r.run_id.empty() ? std::to_string(getpid()) : r.run_id, ".json");
  if (auto s = WriteFileAtomically(path, ResultToJson(r)); !s.ok()) {
    LOG_ERROR("results: %s", s.message());
    return false;
  }
  LOG_WARN("results: wrote them to %s in the working directory instead", path);
  return false;  // not where they were asked for
}

// Writes DIR/result.json atomically; false (and says why) on failure. An
// object-store DIR is written by node 0 through `via`.
bool WriteResult(const std::string& dir, const RunResult& r, bool announce,
                 Coordinator* via) {
  if (dir.empty()) return true;
  // A run that failed for want of descriptors still writes its results.
  DescriptorReserveRelease reserve;
  if (IsObjectStoreUri(dir)) {
    absl::Status s =
        via == nullptr
            ? absl::UnavailableError("no node agent connected to write them")
            : via->PutResult(dir, "result.json", ResultToJson(r),
                             /*check_only=*/false, /*overwrite=*/true);
    if (s.ok()) {
      if (announce)
        LOG_INFO("results: %s/result.json (written by node 0)", dir);
      return true;
    }
    LOG_ERROR("results: cannot write them to %s: %s", dir, s.message());
    return WriteFallback(r);
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string path = dir + "/result.json";
  if (auto s = WriteFileAtomically(path, ResultToJson(r)); !s.ok()) {
    LOG_ERROR("%s", s.message());
    return false;
  }
  if (announce) LOG_INFO("results: %s", path);
  return true;
}

}  // namespace

int FailRun(const std::string& dir, RunResult* r, const std::string& error,
            int code, Coordinator* via) {
  PrintError(error);
  r->status = RunStatus::kFailed;
  r->errors.push_back(error);
  r->finished_at = UtcNowIso8601();
  WriteResult(dir, *r, /*announce=*/false, via);
  return code;
}

LoadOptions LoadOptionsFromArgs(const CliArgs& args) {
  LoadOptions opts;
  opts.yaml_path = args.config_path;
  opts.overrides = args.overrides;
  return opts;
}

absl::StatusOr<LoadedConfig> LoadConfigFromArgs(const CliArgs& args) {
  return LoadConfig(LoadOptionsFromArgs(args));
}

absl::Status CheckResultsDir(const std::string& dir, bool overwrite) {
  if (dir.empty()) return absl::OkStatus();
  if (IsObjectStoreUri(dir)) {
    // Existence is checked by node 0 once nodes are there (ExecuteRun).
    if (dir.find_first_of(" \t\n") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--results-dir '", dir, "': expected ", dir.substr(0, 5),
                       "BUCKET/PREFIX without white space"));
    }
    return CheckStorageUri("--results-dir", dir);
  }
  namespace fs = std::filesystem;
  const std::string path = dir + "/result.json";
  std::error_code ec;
  if (fs::exists(path, ec) && !overwrite) {
    return absl::AlreadyExistsError(absl::StrCat(
        "--results-dir ", dir, ": ", path,
        " is there from an earlier run; refusing to replace it (expected a "
        "results directory of this run's own, or --overwrite)"));
  }
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--results-dir ", dir, ": not a directory (expected a directory)"));
  }
  fs::create_directories(dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(absl::StrCat(
        "--results-dir ", dir, ": cannot create it: ", ec.message(),
        " (expected a writable directory)"));
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("--results-dir ", dir, ": not writable by uid ", geteuid(),
                     " (expected a writable directory)"));
  }
  return absl::OkStatus();
}

int PrepareRun(const CliArgs& args, RunSetup* setup) {
  // Before anything is measured: a run never replaces another's results,
  // and a results directory that cannot be written fails now, not after
  // the rounds. Nothing is written here on failure.
  if (auto s = CheckResultsDir(args.results_dir, args.overwrite); !s.ok()) {
    setup->result.started_at = UtcNowIso8601();
    return FailRun("", &setup->result, std::string(s.message()), 2);
  }
  return PrepareRun(LoadOptionsFromArgs(args), args.results_dir, setup);
}

int PrepareRun(const LoadOptions& options, const std::string& results_dir,
               RunSetup* setup) {
  RunResult& result = setup->result;
  result.started_at = UtcNowIso8601();
  result.environment = ProbeHost();
  result.environment.version = CKPTBENCH_VERSION;
  auto loaded = LoadConfig(options);
  if (!loaded.ok()) {
    return FailRun(results_dir, &result, std::string(loaded.status().message()),
                   2);
  }
  setup->loaded = std::move(*loaded);
  FillConfig(setup->loaded, &result);
  const Config& config = setup->loaded.config;
  if (auto s = ValidateConfig(config, /*need_storage=*/true); !s.ok()) {
    return FailRun(results_dir, &result, std::string(s.message()), 2);
  }
  if (auto s =
          WorkloadRegistry::BuiltIn().CheckResultsApart(config, results_dir);
      !s.ok()) {
    return FailRun(results_dir, &result, std::string(s.message()), 2);
  }
  if (auto s = WorkloadRegistry::BuiltIn().Plan(config, &result); !s.ok()) {
    return FailRun(results_dir, &result, std::string(s.message()), 2);
  }
  if (IsObjectStoreUri(results_dir)) {
    // Results get a prefix of their own: cleanup of checkpoint steps and
    // load-only listings never meet them.
    auto trimmed = [](std::string s) {
      while (s.size() > 1 && s.back() == '/') s.pop_back();
      return s;
    };
    const std::string rd = trimmed(results_dir);
    // (A dataset run's dataset.path: its workload's CheckResultsApart above.)
    for (const auto& [name, path] :
         {std::pair<std::string, std::string>{"storage.path (CKPT_DIR_PATH)",
                                              config.storage.path},
          {"storage.restore_path (CKPT_RESTORE_PATH)", config.RestorePath()}}) {
      const std::string p = trimmed(path);
      if (!p.empty() && (rd == p || absl::StartsWith(rd, p + "/"))) {
        return FailRun(
            "", &result,
            absl::StrCat("--results-dir ", results_dir, " is inside ", name,
                         " ", path, ": expected a prefix of its own"),
            2);
      }
    }
  }
  return 0;
}

namespace {

// What was measured when an interrupted run did not stop within
// `waited` seconds: written, summarized, with the reason.
void WriteMeasured(const std::string& results_dir, Coordinator& coordinator,
                   const std::string& name, double waited, bool again) {
  RunResult snap = coordinator.Snapshot();
  snap.status = RunStatus::kFailed;
  snap.errors.push_back(absl::StrCat(
      again
          ? absl::StrCat("a second signal, ", name, ", came ",
                         absl::StrFormat("%.1f", waited),
                         " s after the first, before the run had stopped")
          : absl::StrCat("interrupted by ", name, "; the run had not stopped ",
                         absl::StrFormat("%.1f", waited),
                         " s later (a thread blocked in storage or in a "
                         "system call)"),
      ", so ckptbench ended it: the rounds measured before are kept, and "
      "the interrupted round's files may remain on storage"));
  snap.finished_at = UtcNowIso8601();
  PrintError(snap.errors.back());
  // Node 0 may be the one blocked: results meant for an object store go
  // to a file in the working directory.
  if (IsObjectStoreUri(results_dir)) {
    WriteFallback(snap);
  } else {
    WriteResult(results_dir, snap, /*announce=*/true, nullptr);
  }
  std::fputs(SummaryTable(snap).c_str(), stdout);
  std::fflush(stdout);
}

// The storage the run measured, as its first round's node 0 saw it.
void NoteStorage(RunResult* result) {
  for (const auto& round : result->rounds) {
    if (!round.nodes.empty() && result->environment.filesystem.empty()) {
      const NodeResult& n = round.nodes[0];
      result->environment.storage_kind = n.storage_kind;
      result->environment.filesystem = n.filesystem;
      result->environment.mount_point = n.mount_point;
      result->environment.mount_options = n.mount_options;
    }
  }
}

}  // namespace

int ExecuteRun(const std::string& results_dir, Coordinator& coordinator,
               SignalWatcher& signals, RunResult* result, bool overwrite) {
  // A step that failed while a node was lost, or with a signal pending,
  // failed for that: 3, whatever the step's own error says (a lost node 0
  // makes the results check look like input to fix, a preflight like a
  // store down).
  auto verdict = [&](int code) {
    const bool interrupted =
        !signals.Pending().empty() ||
        coordinator.FailureCode() == ExitCode::kInterrupted;
    return interrupted ? ToInt(ExitCode::kInterrupted) : code;
  };
  if (IsObjectStoreUri(results_dir)) {
    // First of all, before any failure could write there: node 0 checks
    // that no earlier run's results are at the prefix; on refusal nothing
    // is written anywhere.
    if (auto s = coordinator.PutResult(results_dir, "result.json", "",
                                       /*check_only=*/true, overwrite);
        !s.ok()) {
      return FailRun("", result, absl::StrCat("--results-dir: ", s.message()),
                     verdict(ToInt(ExitCode::kBadInput)));
    }
  }
  if (std::string sig = signals.Pending(); !sig.empty()) {
    return FailRun(results_dir, result,
                   absl::StrCat("interrupted by ", sig, " before any round"),
                   ToInt(ExitCode::kInterrupted), &coordinator);
  }
  if (auto s = coordinator.Preflight(result); !s.ok()) {
    // Exit 2 is for input to fix (a path, a bucket, credentials, a plan);
    // a store that is down or failing is not that.
    const bool environment = absl::IsUnavailable(s) || absl::IsInternal(s) ||
                             absl::IsUnknown(s) || absl::IsDeadlineExceeded(s);
    return FailRun(results_dir, result, std::string(s.message()),
                   verdict(environment ? 1 : 2), &coordinator);
  }
  // A signal aborts the run; if the run has not stopped kGraceSeconds
  // later (a thread stuck in storage or a system call no signal ends), or
  // at a second signal, what was measured is written and the process ends
  // (SignalWatcher).
  auto write_measured = [&](const std::string& name, double waited,
                            bool again) {
    WriteMeasured(results_dir, coordinator, name, waited, again);
  };
  signals.Watch(
      [&coordinator](const std::string& name) {
        PrintError(absl::StrCat(name, ": aborting the run"), "\nckptbench: ");
        coordinator.Interrupt(absl::StrCat("interrupted by ", name));
      },
      write_measured);
  absl::Status status = coordinator.Run(result);
  signals.Watch(nullptr);
  NoteStorage(result);
  result->finished_at = UtcNowIso8601();
  if (!status.ok()) {
    result->status = RunStatus::kFailed;
    result->errors.push_back(std::string(status.message()));
  }
  bool wrote =
      WriteResult(results_dir, *result, /*announce=*/true, &coordinator);
  std::fputs(SummaryTable(*result).c_str(), stdout);
  std::fflush(stdout);
  if (!status.ok()) {
    PrintError(std::string(status.message()));
    return ToInt(coordinator.FailureCode());
  }
  return wrote ? 0 : verdict(1);
}

}  // namespace ckpt
