// Turns a model preset and a cluster shape into a CheckpointPlan: FSDP
// full sharding (every flattened tensor split evenly across ranks), hybrid
// sharding (within a node; node 0's replica writes), or the MLPerf ZeRO-1 /
// ZeRO-3 per-rank rules; then each rank's bytes split into thread_count
// files. Pure; thread-safe.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_PLANNER_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_PLANNER_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/checkpoint/checkpoint_plan.h"
#include "common/config.h"
#include "common/kinds.h"
#include "common/memory.h"

namespace ckpt {

struct PlanOptions {
  std::string model = "transformer";
  int num_layers = 10;
  Optimizer optimizer = Optimizer::kAdam;
  int num_nodes = 1;
  int ranks_per_node = 1;
  int thread_count = 1;
  ShardingStrategy strategy = ShardingStrategy::kFull;
};

PlanOptions PlanOptionsFromConfig(const Config& config);

// Bounds, checked before anything is built: a plan's segments (a tensor's
// piece in a rank's file) cost the coordinator ~kPlanBytesPerSegment each
// (plan and messages) and the .metadata ~kMetadataBytesPerSegment. A plan
// whose estimate exceeds 80% of `budget` (when known) or whose .metadata
// would pass kMaxMetadataBytes is refused with the numbers and the keys
// that change it. Measured: 3.6 M segments (NUM_LAYERS=200,
// NUM_DEVICES=200) took 1.5 GiB in one `run` process and a 146 MiB
// .metadata.
inline constexpr double kPlanBytesPerSegment = 450;
inline constexpr double kMetadataBytesPerSegment = 45;
absl::Status CheckPlanBounds(const PlanOptions& options,
                             const MemoryBudget& budget);

// Bounded by the memory this process has now (AvailableMemory).
absl::StatusOr<CheckpointPlan> MakePlan(const PlanOptions& options);
// Bounded by `budget` (available_bytes 0: the .metadata's bound only).
absl::StatusOr<CheckpointPlan> MakePlan(const PlanOptions& options,
                                        const MemoryBudget& budget);

// Multi-line human-readable description (ckptbench plan).
std::string DescribePlan(const CheckpointPlan& plan, bool per_rank);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_PLANNER_H_
