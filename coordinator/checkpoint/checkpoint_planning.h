// The checkpoint's plan from the configuration (Planning,
// coordinator/run_workload.h), registered with it: made for every run
// (a bad model.* or cluster shape is refused before any node is asked), and
// what it says recorded in every run's result (the model, its sharding and
// layout, the checkpoint's bytes, the world). Thread-safe; reads the
// memory available (MakePlan's bound).
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_PLANNING_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_PLANNING_H_

#include "common/checkpoint/checkpoint_plan.h"
#include "coordinator/results.h"
#include "coordinator/run_workload.h"

namespace ckpt {

Planning CheckpointPlanning();

// What `plan` says of the run, in `result` (and its notes).
void RecordPlan(const CheckpointPlan& plan, RunResult* result);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_PLANNING_H_
