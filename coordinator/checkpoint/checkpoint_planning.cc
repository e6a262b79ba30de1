// The checkpoint's Planning (coordinator/checkpoint/checkpoint_planning.h).
#include "coordinator/checkpoint/checkpoint_planning.h"

#include "common/checkpoint/checkpoint_options.h"
#include "common/status_macros.h"
#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/checkpoint/planner.h"

namespace ckpt {

void RecordPlan(const CheckpointPlan& p, RunResult* r) {
  r->model = p.model;
  r->model_description = p.description;
  r->sharding = p.sharding;
  r->fingerprint = p.fingerprint;
  r->layout = p.layout;
  r->parameters = p.parameters;
  r->checkpoint_bytes = p.total_bytes;
  r->world_size = p.world_size;
  r->num_nodes = p.num_nodes;
  r->ranks_per_node = p.ranks_per_node;
  r->thread_count = p.thread_count;
  r->files = p.FileCount();
  for (const auto& n : p.notes) r->notes.push_back(n);
}

Planning CheckpointPlanning() {
  Planning p;
  p.record = [](const Config& config, RunResult* result) -> absl::Status {
    ASSIGN_OR_RETURN(CheckpointPlan plan,
                     MakePlan(PlanOptionsFromConfig(config)));
    if (result != nullptr) {
      RecordPlan(plan, result);
      // What goodput is computed at (GoodputOf): none without run.mttf.
      const CheckpointOptions& c = CheckpointOf(config);
      if (c.mttf > 0) SetGoodputAt(result, c.mttf, c.interval);
    }
    return absl::OkStatus();
  };
  p.describe = [](const Config& config,
                  bool per_rank) -> absl::StatusOr<std::string> {
    ASSIGN_OR_RETURN(CheckpointPlan plan,
                     MakePlan(PlanOptionsFromConfig(config)));
    return DescribePlan(plan, per_rank);
  };
  return p;
}

}  // namespace ckpt
