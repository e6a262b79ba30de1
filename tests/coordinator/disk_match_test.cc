// The coordinator matching node-local disks to the node indexes that saved
// on them (coordinator/disk_match), through in-process nodes over memory
// storage whose per-node prefixes a test moves between "machines".
#include <gtest/gtest.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/kinds.h"
#include "coordinator/checkpoint/planner.h"
#include "coordinator/coordinator.h"
#include "inprocess/local_node_client.h"
#include "node/storage/memory_storage.h"

namespace ckpt {
namespace {

// Node-local disks whose machines the node indexes moved between (a
// JobSet's pods land where the scheduler puts them): each node loads what
// its own disk holds, said in the notes; disks that do not hold one index
// each fail before any round, naming what each holds.
struct NodeLocal {
  NodeLocal(std::shared_ptr<MemoryStore> m, RunMode mode, int saves, int loads)
      : memory(std::move(m)) {
    config.storage.path = "mem://bucket/n{node}";
    config.model.num_layers = 1;
    config.model.optimizer = Optimizer::kNone;  // as MemConfig: 53 MiB
    CheckpointOf(config).sharding.thread_count = 2;
    CheckpointOf(config).mode = mode;
    CheckpointOf(config).num_save_calls = saves;
    CheckpointOf(config).num_load_calls = loads;
    config.io.block_size = 256 * 1024;
    config.storage.node_local = true;
    config.cluster.num_nodes = 3;
    config.cluster.num_devices = "1";
    plan = *MakePlan(PlanOptionsFromConfig(config));
  }
  absl::Status Run() {
    LocalNodeClient n0(0, "h0", 10, memory), n1(1, "h1", 10, memory),
        n2(2, "h2", 10, memory);
    Coordinator c(config, {&n0, &n1, &n2}, nullptr);
    result = RunResult();
    if (auto s = c.Preflight(&result); !s.ok()) return s;
    return c.Run(&result);
  }
  // The three machines' disks (prefixes n0, n1, n2), shared by the
  // NodeLocal runs of one test.
  std::shared_ptr<MemoryStore> memory;
  Config config;
  CheckpointPlan plan;
  RunResult result;
};

TEST(Coordinator, NodeLocalDisksOnOtherMachinesAreMatchedToTheirIndexes) {
  auto memory = std::make_shared<MemoryStore>();
  NodeLocal save(memory, RunMode::kSaveOnly, 1, 0);
  ASSERT_TRUE(save.Run().ok());
  // Index 0's disk now holds what index 2 saved, 1's what 0 saved, 2's
  // what 1 saved.
  memory->MovePrefix("mem://bucket/n2/", "mem://bucket/t/");
  memory->MovePrefix("mem://bucket/n1/", "mem://bucket/n2/");
  memory->MovePrefix("mem://bucket/n0/", "mem://bucket/n1/");
  memory->MovePrefix("mem://bucket/t/", "mem://bucket/n0/");
  NodeLocal load(memory, RunMode::kLoadOnly, 0, 1);
  absl::Status s = load.Run();
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(load.result.rounds.size(), 1u);
  EXPECT_TRUE(load.result.rounds[0].verified);
  EXPECT_FALSE(load.result.rounds[0].staged);
  std::string notes = absl::StrJoin(load.result.notes, "\n");
  EXPECT_NE(notes.find("each loads what its own disk holds: node 0 (h0) loads "
                       "what index 2 saved; node 1 (h1) loads what index 0 "
                       "saved; node 2 (h2) loads what index 1 saved"),
            std::string::npos)
      << notes;
  // Disks in place: nothing to say.
  memory->Clear();
  ASSERT_TRUE(save.Run().ok());
  ASSERT_TRUE(load.Run().ok());
  EXPECT_EQ(absl::StrJoin(load.result.notes, "\n").find("node-local disks"),
            std::string::npos);
}

TEST(Coordinator, NodeLocalDisksThatDoNotHoldOneIndexEachFailBeforeAnyRound) {
  auto memory = std::make_shared<MemoryStore>();
  NodeLocal save(memory, RunMode::kSaveOnly, 1, 0);
  ASSERT_TRUE(save.Run().ok());
  // Index 2's machine was replaced by a copy of index 0's disk.
  memory->MovePrefix("mem://bucket/n2/", "mem://bucket/gone/");
  memory->MovePrefix("mem://bucket/n0/", "mem://bucket/n2/",
                     /*keep=*/true);
  NodeLocal load(memory, RunMode::kLoadOnly, 0, 1);
  absl::Status s = load.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find(
                "the nodes' disks do not hold one saved node index each (node "
                "0 (h0): what index 0 saved; node 1 (h1): what index 1 saved; "
                "node 2 (h2): what index 0 saved)"),
            std::string::npos)
      << s;
  EXPECT_TRUE(load.result.rounds.empty());
  // Index 0's and 1's disks swapped, index 2's machine a new one: named,
  // not a missing-checksum error, nor a staged checkpoint.
  memory->Clear();
  ASSERT_TRUE(save.Run().ok());
  memory->MovePrefix("mem://bucket/n0/", "mem://bucket/t/");
  memory->MovePrefix("mem://bucket/n1/", "mem://bucket/n0/");
  memory->MovePrefix("mem://bucket/t/", "mem://bucket/n1/");
  memory->MovePrefix("mem://bucket/n2/", "mem://bucket/gone/");
  s = load.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(node 0 (h0): what index 1 saved; node 1 (h1): "
                             "what index 0 saved; node 2 (h2): no committed "
                             "step)"),
            std::string::npos)
      << s;
  EXPECT_TRUE(load.result.rounds.empty());
}

}  // namespace
}  // namespace ckpt
