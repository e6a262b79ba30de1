// What a workload other than the checkpoint brings to a node (the
// checkpoint's own side is NodeAgent): how it prepares its phase from the
// job the coordinator's side of it sent (PrepareRequest.workload_job, its
// own message), and how it runs that phase from the common start instant.
// The node's side of the round protocol (workload_phase.h) does the rest:
// the start instant, progress messages, asks to the coordinator and their
// answers, the abort, a retried start answered with the first outcome.
// A node runs the workloads it was built with (NodeWorkloads, handed to
// NodeService); a round naming another is refused at prepare.
#ifndef CKPTBENCH_NODE_ROUND_NODE_WORKLOAD_H_
#define CKPTBENCH_NODE_ROUND_NODE_WORKLOAD_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "node/storage/storage_factory.h"

namespace ckpt {

// What a running phase may use besides its job.
struct NodePhaseContext {
  uint64_t round_id = 0;
  // Bytes (or the workload's units) done so far and in all; the protocol
  // sends them to the coordinator every progress interval. Thread-safe.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Asks the coordinator's side of the workload for an action and waits
  // for its answer (the workload's own message); fails with Aborted when
  // the round is aborted meanwhile. Thread-safe.
  std::function<absl::StatusOr<std::string>(const std::string& payload)> ask;
  // True once the round is aborted (another node failed): stop soon.
  std::function<bool()> aborted;
};

class NodeWorkload {
 public:
  virtual ~NodeWorkload() = default;
  // Untimed: reads `job`; opens what it needs through `storage` (the
  // node's backends for the run).
  virtual absl::Status Prepare(const std::string& job, StorageSet& storage) = 0;
  // Timed, from the start instant: the phase; returns its report (the
  // workload's own message). An error fails the node with its kind
  // (ErrorKindOf).
  virtual absl::StatusOr<std::string> Run(const NodePhaseContext& ctx) = 0;
};

// The workloads a node runs besides the checkpoint, by name
// (PrepareRequest.workload); each round gets a new instance.
using NodeWorkloadFactory = std::function<std::unique_ptr<NodeWorkload>()>;
using NodeWorkloads = std::map<std::string, NodeWorkloadFactory>;

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_ROUND_NODE_WORKLOAD_H_
