// A run of `nodes` in-process nodes over one memory store, driven by the
// coordinator as `ckptbench run` drives its node (the dataset workloads'
// tests).
#ifndef CKPTBENCH_TESTS_TESTING_INPROCESS_RUN_H_
#define CKPTBENCH_TESTS_TESTING_INPROCESS_RUN_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/dataset/datagen_job.h"
#include "coordinator/checkpoint/planner.h"
#include "coordinator/coordinator.h"
#include "inprocess/local_node_client.h"
#include "node/storage/memory_storage.h"

namespace ckpt {

struct InProcessRun {
  InProcessRun(std::shared_ptr<MemoryStore> memory, const Config& c,
               int nodes = 1)
      : config(c), plan(*MakePlan(PlanOptionsFromConfig(c))) {
    for (int i = 0; i < nodes; ++i) {
      owned.push_back(std::make_unique<LocalNodeClient>(
          i, "host-" + std::to_string(i), 10, memory));
      clients.push_back(owned.back().get());
    }
    coordinator = std::make_unique<Coordinator>(config, clients, nullptr);
  }
  absl::Status Run() {
    absl::Status s = coordinator->Preflight(&result);
    if (!s.ok()) return s;
    return coordinator->Run(&result);
  }
  Config config;
  CheckpointPlan plan;
  std::vector<std::unique_ptr<LocalNodeClient>> owned;
  std::vector<NodeClient*> clients;
  std::unique_ptr<Coordinator> coordinator;
  RunResult result;
};

// The dataset `c` describes, made on `memory` by a one-node datagen run.
inline void MakeDataset(const std::shared_ptr<MemoryStore>& memory, Config c) {
  c.run.workload = kDatagenWorkload;
  InProcessRun h(memory, c, 1);
  ASSERT_TRUE(h.Run().ok());
}

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_INPROCESS_RUN_H_
