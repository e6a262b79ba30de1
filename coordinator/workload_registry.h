// The workloads a run can drive, each registered once: its name (the value
// of run.workload) and how to make its run (coordinator/run_workload.h).
// The coordinator finds a run's workload here and knows none by name. A
// registry is a value: the built-in one is immutable, and a test (or a
// tool built on ckptbench) adds its own workloads to a copy.
#ifndef CKPTBENCH_COORDINATOR_WORKLOAD_REGISTRY_H_
#define CKPTBENCH_COORDINATOR_WORKLOAD_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/run_workload.h"

namespace ckpt {

using RunWorkloadFactory = std::function<std::unique_ptr<RunWorkload>()>;

struct RunWorkloadEntry {
  std::string name;  // run.workload's value
  RunWorkloadFactory make;
};

class WorkloadRegistry {
 public:
  // checkpoint, datagen and dataload.
  static const WorkloadRegistry& BuiltIn();

  // This registry and `entry`; AlreadyExists when its name is taken,
  // InvalidArgument when it is empty or has no factory.
  absl::StatusOr<WorkloadRegistry> With(RunWorkloadEntry entry) const;

  // The run of workload `name`; InvalidArgument naming the registered ones
  // when there is none.
  absl::StatusOr<std::unique_ptr<RunWorkload>> New(std::string_view name) const;

  // In registration order.
  std::vector<std::string> Names() const;

 private:
  std::vector<RunWorkloadEntry> entries_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_WORKLOAD_REGISTRY_H_
