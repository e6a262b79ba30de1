// `ckptbench coordinator`: serves node sessions, waits for NUM_NODES nodes,
// estimates their clocks, then drives the same rounds as `run` over gRPC.
#include <unistd.h>

#include <thread>

#include "absl/strings/str_cat.h"
#include "common/grpc_tls.h"
#include "common/log.h"
#include "coordinator/clock_sync.h"
#include "coordinator/session_server.h"
#include "main/commands.h"
#include "main/run_support.h"

namespace ckpt {

int CoordinatorCommand(const CliArgs& args) {
  SignalWatcher signals;  // first, before any other thread exists
  RunSetup setup;
  if (int code = PrepareRun(args, &setup); code != 0) return code;
  const Config& config = setup.loaded.config;
  RunResult& result = setup.result;

  auto tls = MakeServerCredentials(config.control);
  if (!tls.ok()) {
    return FailRun(args.results_dir, &result,
                   std::string(tls.status().message()), 2);
  }
  if (!tls->tls) {
    LOG_WARN(
        "control channel without TLS: node traffic to %s is unencrypted "
        "(set tls.cert / tls.key, and tls.ca for mutual TLS)",
        config.control.listen);
  }
  if (config.control.token.empty()) {
    LOG_WARN(
        "no auth.token (CKPT_TOKEN): any node that reaches %s may register",
        config.control.listen);
  }
  const std::string run_id = NewRunId();
  SessionServerOptions so;
  so.listen = config.control.listen;
  so.tls = *tls;
  so.num_nodes = config.cluster.num_nodes;
  so.token = config.control.token;
  so.node_timeout = config.control.node_timeout;
  so.heartbeat_interval = config.control.heartbeat_interval;
  so.run_id = run_id;
  auto server = SessionServer::Start(so);
  if (!server.ok()) {
    return FailRun(args.results_dir, &result,
                   std::string(server.status().message()), 2);
  }
  LOG_INFO(
      "coordinator listening on %s (%s%s); waiting up to %g s for %d node(s)",
      config.control.listen, tls->tls ? "TLS" : "plaintext",
      tls->mutual ? ", client certificates required" : "",
      config.control.register_timeout, config.cluster.num_nodes);
  signals.Watch([&](const std::string& name) {
    (*server)->CancelWait(absl::StrCat("interrupted by ", name));
  });
  auto nodes = (*server)->WaitForNodes(config.control.register_timeout);
  signals.Watch(nullptr);
  if (!nodes.ok()) {
    std::string error(nodes.status().message());
    (*server)->Shutdown(false, error);
    return FailRun(args.results_dir, &result, error, 1);
  }

  // Clock offsets and round trips, all nodes at once.
  std::vector<absl::Status> clock_errors(nodes->size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < nodes->size(); ++i) {
    threads.emplace_back([&, i] {
      auto est = EstimateClock(*(*nodes)[i]);
      if (!est.ok()) {
        clock_errors[i] = est.status();
        return;
      }
      (*nodes)[i]->SetClock(est->offset_ns, est->rtt_seconds);
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < nodes->size(); ++i) {
    if (!clock_errors[i].ok()) {
      std::string error =
          absl::StrCat("clock estimate: ", clock_errors[i].message());
      (*server)->Shutdown(false, error);
      return FailRun(args.results_dir, &result, error, 1);
    }
    RemoteNode* n = (*nodes)[i];
    result.clocks.push_back({n->index(), n->host(),
                             static_cast<double>(n->clock_offset_ns()) / 1e6,
                             n->rtt_seconds() * 1e3});
    LOG_INFO("node %d (%s): clock offset %+.3f ms, round trip %.3f ms",
             n->index(), n->host(),
             static_cast<double>(n->clock_offset_ns()) / 1e6,
             n->rtt_seconds() * 1e3);
  }

  std::unique_ptr<ProgressPrinter> progress;
  if (!args.quiet) {
    progress = std::make_unique<ProgressPrinter>(config.run.progress_interval,
                                                 isatty(STDERR_FILENO) != 0);
  }
  std::vector<NodeClient*> clients(nodes->begin(), nodes->end());
  Coordinator coordinator(config, setup.plan, clients, progress.get(), run_id);
  int code = ExecuteRun(args.results_dir, coordinator, signals, &result);
  (*server)->Shutdown(code == 0,
                      result.errors.empty() ? "" : result.errors.back());
  return code;
}

}  // namespace ckpt
