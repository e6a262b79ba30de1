// Node-local disks (storage.node_local) and the node indexes that saved on
// them. Each node's .metadata holds only its own ranks' checksums, so a
// load must run each saved index's ranks on the node whose disk holds its
// files. On Kubernetes nothing keeps pod index i on the host index i saved
// on (a JobSet's pods land where the scheduler puts them): the coordinator
// matches indexes to disks from what each disk holds, before any round.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_DISK_MATCH_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_DISK_MATCH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/checkpoint/checkpoint_plan.h"
#include "common/inspection.h"
#include "coordinator/round/node_client.h"

namespace ckpt {

struct DiskMatch {
  // order[j]: the position (in `nodes`) of the node whose disk holds what
  // index j saved. Identity when every disk holds its own node's.
  std::vector<size_t> order;
  bool identity = true;
  // One line per node that loads another index's files: "node 0 (host-a)
  // loads what index 2 saved".
  std::vector<std::string> moves;
};

// `listings[i]` is node i's listing of `dir` with its .metadata
// (want_metadata). Nothing to do when no disk holds another index's ranks
// (some may hold none: the run stages, or the checks that follow say what
// is missing), or when a .metadata is of another layout (a resharded load,
// which CheckedMetadata refuses on node-local disks). FailedPrecondition,
// naming what each node's disk holds, when a disk holds another index's
// ranks and the disks are not a permutation of the saved indexes.
absl::StatusOr<DiskMatch> MatchDisksToIndexes(
    const CheckpointPlan& plan, const std::vector<StepListing>& listings,
    const std::vector<NodeClient*>& nodes, const std::string& dir);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_DISK_MATCH_H_
