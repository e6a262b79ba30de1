// A sweep before its first run (`ckptbench sweep`): every run of the
// experiment loaded, validated and planned as `ckptbench run` would, each
// point on its own sub-path of the storage targets, the control channel
// the same for every point (one coordinator serves them all).
#ifndef CKPTBENCH_SWEEP_SWEEP_PLAN_H_
#define CKPTBENCH_SWEEP_SWEEP_PLAN_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "common/config_loader.h"
#include "common/experiment.h"

namespace ckpt {

// One run, checked: its sources and the configuration they give.
struct CheckedRun {
  LoadOptions options;
  Config config;
  // `prepare: W`, for a point whose workload W prepares (the registry's
  // Preparation: a dataload of a dataset of ckptbench's is prepared by
  // datagen): the run that makes (or finds) what it reads first, and what
  // that run makes (the dataset's path), which names it among the sweep's
  // (one preparing run each).
  std::optional<LoadOptions> prepare;
  std::string dataset;
};

struct SweepPlan {
  std::vector<SweepRun> runs;
  std::vector<CheckedRun> checked;  // one per run
  int max_nodes = 1;                // the most nodes a point runs on
};

// "<path>/point-NNN": each point of the product its own part of the storage
// target, so points with different plans never read each other's steps.
std::string PointPath(const std::string& path, int point);

// OK when `a` and `b` serve the same control channel (control.*, tls.*,
// auth.*); else InvalidArgument saying it must not vary.
absl::Status SameControl(const Config& a, const Config& b);

// Every run of `experiment` checked; the first that fails is named
// ("sweep run NNN-K=1: ...").
absl::StatusOr<SweepPlan> PlanSweep(const Experiment& experiment);

}  // namespace ckpt

#endif  // CKPTBENCH_SWEEP_SWEEP_PLAN_H_
