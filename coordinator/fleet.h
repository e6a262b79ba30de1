// The coordinator role's node side, shared by `coordinator` and by `sweep`
// when its points span several nodes: serves node sessions on
// control.listen (TLS and token per control.*), waits for the nodes, and
// estimates each node's clock offset and round trip once
// (tests/coordinator/fleet_test.cc).
#ifndef CKPTBENCH_COORDINATOR_FLEET_H_
#define CKPTBENCH_COORDINATOR_FLEET_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "common/exit_code.h"
#include "common/health_server.h"
#include "coordinator/results.h"
#include "coordinator/session_server.h"

namespace ckpt {

struct Fleet {
  std::unique_ptr<HealthServer> health;  // control.coordinator_health_port
  std::unique_ptr<SessionServer> server;
  std::vector<RemoteNode*> nodes;  // index order
  std::vector<NodeClock> clocks;   // same order
};

// How the fleet hears of an interrupt while it waits for the nodes: it is
// called with what to run on a signal (given its name, "SIGINT"), then
// with null when the wait ends; once that call returns, the callback must
// not be running (the fleet may free what it touches).
// SignalWatcher::Watch (main/signal_watcher.h) fits: it runs the callback
// under the lock Watch takes.
using WatchInterrupts =
    std::function<void(std::function<void(const std::string& signal)>)>;

// InvalidArgument for bad control settings (exit 2); other errors are the
// run's (nodes missing, interrupted, a clock estimate failed). The server
// is shut down before an error returns. Nodes missing after
// control.register_timeout are named by index, and in a Kubernetes pod
// (KUBERNETES_SERVICE_HOST set) the error says where to look.
// The exit status a StartFleet error ends the process with (and its nodes
// with it): 2 for bad settings, 3 when interrupted while waiting or a node
// was lost before its clock was estimated, else 1.
ExitCode FleetExitCode(const absl::Status& error);

absl::StatusOr<Fleet> StartFleet(const ControlOptions& control, int num_nodes,
                                 const std::string& run_id,
                                 const WatchInterrupts& watch);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_FLEET_H_
