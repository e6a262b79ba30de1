// The coordinator role's node side, shared by `coordinator` and by `sweep`
// when its points span several nodes: serves node sessions on
// control.listen (TLS and token per control.*), waits for the nodes, and
// estimates each node's clock offset and round trip once.
#ifndef CKPTBENCH_MAIN_FLEET_H_
#define CKPTBENCH_MAIN_FLEET_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "coordinator/results.h"
#include "coordinator/session_server.h"
#include "main/health_server.h"
#include "main/run_support.h"

namespace ckpt {

struct Fleet {
  std::unique_ptr<HealthServer> health;  // control.coordinator_health_port
  std::unique_ptr<SessionServer> server;
  std::vector<RemoteNode*> nodes;  // index order
  std::vector<NodeClock> clocks;   // same order
};

// InvalidArgument for bad control settings (exit 2); other errors are the
// run's (nodes missing, interrupted, a clock estimate failed). The server
// is shut down before an error returns. Nodes missing after
// control.register_timeout are named by index, and in a Kubernetes pod
// (KUBERNETES_SERVICE_HOST set) the error says where to look.
absl::StatusOr<Fleet> StartFleet(const Config& config, int num_nodes,
                                 const std::string& run_id,
                                 SignalWatcher& signals);

}  // namespace ckpt

#endif  // CKPTBENCH_MAIN_FLEET_H_
