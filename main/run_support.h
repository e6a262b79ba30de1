// What `run` and `coordinator` share: loading and validating the
// configuration and plan, running the coordinator (stopped cleanly by the
// SignalWatcher, signal_watcher.h), and writing result.json and the
// summary table.
#ifndef CKPTBENCH_MAIN_RUN_SUPPORT_H_
#define CKPTBENCH_MAIN_RUN_SUPPORT_H_

#include <string>

#include "common/config_loader.h"
#include "coordinator/coordinator.h"
#include "coordinator/fleet.h"
#include "coordinator/results.h"
#include "main/cli.h"
#include "main/signal_watcher.h"

namespace ckpt {

// Config sources from --config and key=value overrides.
LoadOptions LoadOptionsFromArgs(const CliArgs& args);
// Config from --config, the environment and key=value overrides.
absl::StatusOr<LoadedConfig> LoadConfigFromArgs(const CliArgs& args);

struct RunSetup {
  LoadedConfig loaded;
  RunResult result;
};

// Loads config (sources per `args`), validates it and plans. Returns 0 and
// fills `setup`, or prints the error, writes a failed result and returns
// the exit code (2).
int PrepareRun(const CliArgs& args, RunSetup* setup);
// Refuses (before any round) a results directory that holds a result.json
// unless `overwrite`, or that cannot be created or written.
absl::Status CheckResultsDir(const std::string& dir, bool overwrite);

// The same from explicit sources; the result goes to `results_dir`.
int PrepareRun(const LoadOptions& options, const std::string& results_dir,
               RunSetup* setup);

// Records a failure before or outside the rounds, writes the result,
// returns `code`. An object-store results_dir is written by node 0 through
// `via`; without it (no nodes yet) the result goes to a new file in the
// working directory.
int FailRun(const std::string& results_dir, RunResult* result,
            const std::string& error, int code, Coordinator* via = nullptr);

// Preflight, run, DIR/result.json, summary table. Returns the exit code:
// 0, 1 (a failed run: Coordinator::FailureCode), 2 (bad input), 3
// (interrupted, or a node lost: Coordinator::FailureCode).
// An object-store DIR is checked (before any round, unless `overwrite`) and
// written by node 0.
int ExecuteRun(const std::string& results_dir, Coordinator& coordinator,
               SignalWatcher& signals, RunResult* result,
               bool overwrite = false);

}  // namespace ckpt

#endif  // CKPTBENCH_MAIN_RUN_SUPPORT_H_
