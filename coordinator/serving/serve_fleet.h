// A serve load round's fleet figures (ReplicaLoadResult::Fleet) from its
// replicas: what an autoscaler adding replicas waits for. Each replica's
// time to loaded is from its own start (a staggered fleet's replicas start
// apart); the fleet is loaded when its last one is, from the first start.
// The slowest replicas (of those slower than the median, at most
// kFleetSlowest) are named with why, against the other replicas' medians:
// the store's throttles and retries, a late first byte, a slow download,
// or a slower read. The objects every replica read, summed, show which the
// store throttled. Pure; thread-safe.
#ifndef CKPTBENCH_COORDINATOR_SERVING_SERVE_FLEET_H_
#define CKPTBENCH_COORDINATOR_SERVING_SERVE_FLEET_H_

#include <vector>

#include "coordinator/serving/serve_results.h"

namespace ckpt {

// The most slow replicas named.
inline constexpr size_t kFleetSlowest = 3;

ReplicaLoadResult::Fleet FleetOf(
    const std::vector<ReplicaLoadResult::Replica>& replicas);

// The replicas' objects summed per object, most throttled first (then
// most requested, then by name).
std::vector<ReplicaLoadResult::HotObject> HotObjectsOf(
    const std::vector<ReplicaLoadResult::Replica>& replicas);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_SERVING_SERVE_FLEET_H_
