// `ckptbench coordinator`: serves node sessions, waits for NUM_NODES nodes,
// estimates their clocks, then drives the same rounds as `run` over gRPC.
#include <unistd.h>

#include "coordinator/fleet.h"
#include "main/commands.h"
#include "main/run_support.h"

namespace ckpt {

int CoordinatorCommand(const CliArgs& args) {
  SignalWatcher signals;  // first, before any other thread exists
  RunSetup setup;
  if (int code = PrepareRun(args, &setup); code != 0) return code;
  const Config& config = setup.loaded.config;
  RunResult& result = setup.result;
  const std::string run_id = NewRunId();
  auto fleet = StartFleet(config.control, config.cluster.num_nodes, run_id,
                          WatchWith(signals));
  if (!fleet.ok()) {
    return FailRun(args.results_dir, &result,
                   std::string(fleet.status().message()),
                   ToInt(FleetExitCode(fleet.status())));
  }
  result.clocks = fleet->clocks;
  std::unique_ptr<ProgressPrinter> progress;
  if (!args.quiet) {
    progress = std::make_unique<ProgressPrinter>(config.run.progress_interval,
                                                 isatty(STDERR_FILENO) != 0);
  }
  std::vector<NodeClient*> clients(fleet->nodes.begin(), fleet->nodes.end());
  Coordinator coordinator(config, clients, progress.get(), run_id);
  int code = ExecuteRun(args.results_dir, coordinator, signals, &result,
                        args.overwrite);
  fleet->server->Shutdown(static_cast<ExitCode>(code),
                          result.errors.empty() ? "" : result.errors.back());
  return code;
}

}  // namespace ckpt
