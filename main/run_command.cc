// `ckptbench run`: single node, coordinator and node agent in one process,
// talking through the same NodeClient interface as the multinode build. A
// serve run may have several node agents in the process (NUM_NODES): the
// replicas of a fleet on one host, sharing its page cache.
#include <unistd.h>

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/environment.h"
#include "coordinator/workload_registry.h"
#include "inprocess/local_node_client.h"
#include "main/commands.h"
#include "main/run_support.h"

namespace ckpt {

int RunCommand(const CliArgs& args) {
  SignalWatcher signals;  // first, before any other thread exists
  RunSetup setup;
  if (int code = PrepareRun(args, &setup); code != 0) return code;
  const Config& config = setup.loaded.config;
  const int most =
      WorkloadRegistry::BuiltIn().NodesInOneProcess(config.run.workload);
  if (config.cluster.num_nodes < 1 || config.cluster.num_nodes > most) {
    return FailRun(
        args.results_dir, &setup.result,
        most > 1
            ? absl::StrCat(
                  "cluster.num_nodes (NUM_NODES) = ", config.cluster.num_nodes,
                  ": `ckptbench run` holds 1 to ", most,
                  " nodes in one process for run.workload = ",
                  config.run.workload,
                  " (more: `ckptbench coordinator` and "
                  "`ckptbench node`)")
            : absl::StrCat(
                  "cluster.num_nodes (NUM_NODES) = ", config.cluster.num_nodes,
                  ": `ckptbench run` is single-node for run.workload = ",
                  config.run.workload,
                  "; expected 1 (use `ckptbench coordinator` and "
                  "`ckptbench node`)"),
        2);
  }
  // The replicas of one host: one store for mem:// locations, as their
  // files are one host's.
  auto memory = std::make_shared<MemoryStore>();
  std::vector<std::unique_ptr<LocalNodeClient>> nodes;
  std::vector<NodeClient*> clients;
  for (int i = 0; i < config.cluster.num_nodes; ++i) {
    nodes.push_back(std::make_unique<LocalNodeClient>(
        i, HostName(), config.run.progress_interval, memory));
    clients.push_back(nodes.back().get());
  }
  std::unique_ptr<ProgressPrinter> progress;
  if (!args.quiet) {
    progress = std::make_unique<ProgressPrinter>(config.run.progress_interval,
                                                 isatty(STDERR_FILENO) != 0);
  }
  Coordinator coordinator(config, clients, progress.get());
  return ExecuteRun(args.results_dir, coordinator, signals, &setup.result,
                    args.overwrite);
}

}  // namespace ckpt
