// `ckptbench run`: single node, coordinator and node agent in one process,
// talking through the same NodeClient interface as the multinode build.
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "coordinator/environment.h"
#include "inprocess/local_node_client.h"
#include "main/commands.h"
#include "main/run_support.h"

namespace ckpt {

int RunCommand(const CliArgs& args) {
  SignalWatcher signals;  // first, before any other thread exists
  RunSetup setup;
  if (int code = PrepareRun(args, &setup); code != 0) return code;
  const Config& config = setup.loaded.config;
  if (config.cluster.num_nodes != 1) {
    return FailRun(
        args.results_dir, &setup.result,
        absl::StrCat(
            "cluster.num_nodes (NUM_NODES) = ", config.cluster.num_nodes,
            ": `ckptbench run` is single-node; expected 1 "
            "(use `ckptbench coordinator` and `ckptbench node`)"),
        2);
  }
  LocalNodeClient node(0, HostName(), config.run.progress_interval);
  std::unique_ptr<ProgressPrinter> progress;
  if (!args.quiet) {
    progress = std::make_unique<ProgressPrinter>(config.run.progress_interval,
                                                 isatty(STDERR_FILENO) != 0);
  }
  Coordinator coordinator(config, {&node}, progress.get());
  return ExecuteRun(args.results_dir, coordinator, signals, &setup.result,
                    args.overwrite);
}

}  // namespace ckpt
