// The checkpoint workload's configuration keys: its block's
// (common/checkpoint/checkpoint_options.h) sharding.*, run.mode,
// run.num_save_calls, run.num_load_calls, run.async, run.interval,
// run.mttf, run.visible_timeout and load.*, and its choice of run.workload.
// BuildConfigKeys (common/config_run_keys.cc) places them in the one key
// table where `ckptbench keys` has always listed them.
#ifndef CKPTBENCH_COMMON_CHECKPOINT_CHECKPOINT_KEYS_H_
#define CKPTBENCH_COMMON_CHECKPOINT_CHECKPOINT_KEYS_H_

#include <vector>

#include "common/config_keys.h"

namespace ckpt {

// The checkpoint's keys, each run after the shared key it follows, and its
// name, with what it does, appended to `workloads`.
std::vector<KeysAfter> AddCheckpointKeys(
    std::vector<WorkloadChoice>* workloads);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CHECKPOINT_CHECKPOINT_KEYS_H_
