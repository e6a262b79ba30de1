// The datagen workload's run (`ckptbench datagen`, or run.workload=datagen):
// its preflight looks at the dataset's target (coordinator/dataset/
// dataset_preflight.h); its run is one round of the dataset workload
// (coordinator/dataset/datagen_round.h) through the round protocol, which
// makes (or removes) the dataset; the round goes in the run's rounds and
// what it made in the run's dataset block. A sweep's `prepare: datagen`
// runs it before the runs that read the dataset.
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATAGEN_RUN_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATAGEN_RUN_H_

#include <string_view>

#include "coordinator/run_workload.h"

namespace ckpt {

// What a short dataset round asks for instead.
inline constexpr std::string_view kLargerDataset =
    "a larger dataset (dataset.samples, dataset.sample_bytes)";

class DatagenRun : public RunWorkload {
 public:
  absl::Status Preflight(RunContext& ctx, RunResult* result) override;
  absl::Status Run(RunContext& ctx, RunResult* result) override;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATAGEN_RUN_H_
