// The checkpoint's checks of the configuration (ConfigChecks,
// coordinator/run_workload.h), registered with it. Pure; thread-safe.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_CONFIG_CHECKS_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_CONFIG_CHECKS_H_

#include "absl/status/status.h"
#include "common/config.h"
#include "coordinator/run_workload.h"

namespace ckpt {

// For a checkpoint run: where its checkpoints go (storage.path, unless a
// load-only run reads storage.restore_path) and an asynchronous save's
// training time to overlap (run.interval). OK, or InvalidArgument naming
// the key, its value and what was expected; the hint names what a workload
// embedding the checkpoint's saves sets instead (scope.instead).
absl::Status CheckCheckpointKeys(const Config& c, const KeyCheckScope& scope);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_CONFIG_CHECKS_H_
