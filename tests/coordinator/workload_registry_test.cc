// The registry of run-level workloads (coordinator/workload_registry.h):
// the built-in three by the names run.workload takes, a workload added to a
// copy without touching the built-in one, and the refusals.
#include "coordinator/workload_registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/kinds.h"

namespace ckpt {
namespace {

class NothingRun : public RunWorkload {
 public:
  absl::Status Preflight(RunContext&, RunResult*) override {
    return absl::OkStatus();
  }
  absl::Status Run(RunContext&, RunResult*) override {
    return absl::OkStatus();
  }
};

RunWorkloadEntry Nothing(std::string name) {
  return {std::move(name), [] { return std::make_unique<NothingRun>(); }};
}

TEST(WorkloadRegistry, HoldsEveryBuiltInWorkloadByItsConfigurationName) {
  const auto& builtin = WorkloadRegistry::BuiltIn();
  const std::vector<std::string> names = builtin.Names();
  ASSERT_EQ(names.size(), 3u);
  for (Workload w :
       {Workload::kCheckpoint, Workload::kDatagen, Workload::kDataload}) {
    const std::string name(Name(w));
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    auto run = builtin.New(name);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_NE(run->get(), nullptr);
  }
}

TEST(WorkloadRegistry, AddsAWorkloadToACopyOnly) {
  auto with = WorkloadRegistry::BuiltIn().With(Nothing("nothing"));
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_EQ(with->Names().back(), "nothing");
  auto run = with->New("nothing");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_NE(dynamic_cast<NothingRun*>(run->get()), nullptr);
  // Each New makes a run of its own.
  EXPECT_NE(with->New("nothing")->get(), run->get());
  EXPECT_EQ(WorkloadRegistry::BuiltIn().Names().size(), 3u);
  EXPECT_FALSE(WorkloadRegistry::BuiltIn().New("nothing").ok());
}

TEST(WorkloadRegistry, RefusesATakenNameAnEmptyOneAndNamesTheKnownOnes) {
  auto taken = WorkloadRegistry::BuiltIn().With(Nothing("dataload"));
  EXPECT_EQ(taken.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(taken.status().message().find("'dataload'"), std::string::npos);
  EXPECT_EQ(WorkloadRegistry::BuiltIn().With(Nothing("")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(WorkloadRegistry::BuiltIn()
                .With(RunWorkloadEntry{"empty", nullptr})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  auto unknown = WorkloadRegistry::BuiltIn().New("serving");
  ASSERT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "run.workload: no workload 'serving' (expected one of "
            "checkpoint, datagen, dataload)");
}

}  // namespace
}  // namespace ckpt
