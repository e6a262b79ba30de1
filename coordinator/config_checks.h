// Every check of a configuration before any node is asked: the keys every
// run has (common/config.h) and each registered workload's own
// (ConfigChecks, coordinator/run_workload.h).
#ifndef CKPTBENCH_COORDINATOR_CONFIG_CHECKS_H_
#define CKPTBENCH_COORDINATOR_CONFIG_CHECKS_H_

#include <string>

#include "absl/status/status.h"
#include "common/config.h"
#include "coordinator/workload_registry.h"

namespace ckpt {

// Cross-field checks run after all sources are merged: the storage
// locations, every workload's keys (WorkloadRegistry::CheckKeys: the
// other workloads' first, then the run's own), then the shared keys.
// `need_storage` is false for commands that do no I/O (plan). The first error,
// naming the key, its value and what was expected.
absl::Status ValidateConfig(
    const Config& config, bool need_storage,
    const WorkloadRegistry& registry = WorkloadRegistry::BuiltIn());

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CONFIG_CHECKS_H_
