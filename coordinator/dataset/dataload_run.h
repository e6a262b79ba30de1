// The dataload workload's run (run.workload=dataload): dataload.epochs
// rounds of the data loader (coordinator/dataset/dataload_round.h) through
// the round protocol, the first always cold, later ones warm with
// dataload.warm_epochs; or, with dataload.find_accelerators, one cold epoch
// per count of ranks per node (coordinator/dataset/accelerator_search.h).
// It embeds the checkpoint: with dataload.checkpoint_every, checkpoint
// saves during each epoch (coordinator/dataset/epoch_saves.h), their steps
// claimed, committed and retired as the checkpoint's own, their rounds
// after the epoch's.
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATALOAD_RUN_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATALOAD_RUN_H_

#include <memory>
#include <optional>
#include <string>

#include "common/checkpoint/checkpoint_plan.h"
#include "common/dataset/dataset_layout.h"
#include "coordinator/run_workload.h"

namespace ckpt {

class EpochSaves;
struct DataloadPlan;

// A dataload of a dataset of ckptbench's is prepared by datagen (a
// sweep's `prepare: datagen`): the dataset the configuration describes,
// under <storage.path>/datasets/<its name> when dataset.path is unset.
Preparation DataloadPreparation();

// dataload embeds the checkpoint's saves (dataload.checkpoint_every): in an
// epoch, the batches between saves set what run.interval sets for a
// checkpoint run.
Embedding DataloadEmbedding();

// The prepared dataset's directory under <storage.path>/datasets/ (as the
// point gives storage.path, before its point-NNN): the same dataset for
// every point that asks for the same one, made once. E.g.
// "tar-20000x150KiB-s25KiB-shard4MiB-seed1".
std::string DatasetDirName(const DatasetSpec& spec);

class DataloadRun : public RunWorkload {
 public:
  absl::Status Preflight(RunContext& ctx, RunResult* result) override;
  absl::Status Run(RunContext& ctx, RunResult* result) override;

 private:
  // dataload.find_accelerators: one cold epoch per count of ranks per node.
  absl::Status RunAcceleratorSearch(RunContext& ctx, const DataloadPlan& base,
                                    RunResult* result);
  // An epoch's checkpoints, their first step `first_step` (claimed).
  std::unique_ptr<EpochSaves> NewEpochSaves(RunContext& ctx,
                                            const std::string& dir,
                                            uint64_t first_step,
                                            int saves_before);
  // After an epoch with checkpoints (result->rounds[epoch_at]): its saves'
  // rounds after the rounds so far, their steps this run's, a step a save
  // did not commit removed; the step claimed for the next save (0: none).
  uint64_t TakeEpochSaves(RunContext& ctx, EpochSaves& saves,
                          const std::string& dir, size_t epoch_at,
                          RunResult* result);

  // The checkpoint's plan, for the saves during the epochs
  // (dataload.checkpoint_every).
  std::optional<CheckpointPlan> checkpoint_plan_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATALOAD_RUN_H_
