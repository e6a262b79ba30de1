// Failure is a result, not a hang: dead, hung and interrupted processes.
// Each process exits with what ended the run (common/exit_code.h), the
// coordinator's verdict on every node: 3 for a node lost or a signal (new
// pods may finish it), 1 for a node's own failure, 2 for input to fix, so
// that a Kubernetes Job's podFailurePolicy sees one answer on every pod.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/testing/cluster.h"

namespace ckpt {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Saves big enough (~2.3 GiB over all nodes) that a round is still running
// a moment after the previous one is logged.
Env BigSaves(int nodes) {
  return {{"NUM_NODES", std::to_string(nodes)},
          {"NUM_LAYERS", "300"},
          {"NUM_SAVE_CALLS", "4"},
          {"NUM_LOAD_CALLS", "0"},
          {"CKPT_BLOCK_SIZE", "1MiB"},
          {"CKPT_NODE_TIMEOUT", "4"}};
}

// A coordinator and two nodes of BigSaves, past their first save.
struct SavingPair {
  Cluster c;
  std::unique_ptr<Process> coord, n0, n1;
};
void StartSavingPair(SavingPair* p) {
  p->coord = p->c.StartCoordinator(BigSaves(2));
  p->n0 = p->c.StartNode(0);
  p->n1 = p->c.StartNode(1);
  ASSERT_TRUE(p->coord->WaitForOutput("save 1: step-1", 120))
      << p->coord->Err();
}

TEST(MultinodeFailure, KilledNodeFailsTheRoundNamingItAndKeepsCompletedRounds) {
  Cluster c;
  auto coord = c.StartCoordinator(BigSaves(3));
  std::vector<std::unique_ptr<Process>> nodes;
  for (int i = 0; i < 3; ++i) nodes.push_back(c.StartNode(i));
  ASSERT_TRUE(coord->WaitForOutput("save 1: step-1", 120)) << coord->Err();
  auto killed_at = Clock::now();
  nodes[2]->Signal(SIGKILL);
  int code = coord->Wait(30);
  double took = Since(killed_at);
  EXPECT_EQ(code, 3) << coord->Err();
  // Bound: control.node_timeout, plus the shutdown grace and slack for a
  // loaded CI machine; the default timeout keeps this well under a minute.
  EXPECT_LT(took, 4 + 10.0);
  EXPECT_NE(coord->Err().find("node 2 ("), std::string::npos) << coord->Err();
  json j = json::parse(ReadFile(c.ResultPath()));
  EXPECT_EQ(j["status"], "failed");
  ASSERT_GE(j["rounds"].size(), 2u);
  EXPECT_EQ(j["rounds"][0]["status"], "ok");
  const auto& last = j["rounds"].back();
  EXPECT_EQ(last["status"], "failed");
  EXPECT_NE(last["error"].get<std::string>().find("node 2 ("),
            std::string::npos)
      << last;
  // The survivors were told to abort, and why: they exit 3 too.
  EXPECT_EQ(nodes[0]->Wait(15), 3) << nodes[0]->Err();
  EXPECT_EQ(nodes[1]->Wait(15), 3) << nodes[1]->Err();
  EXPECT_NE(nodes[0]->Err().find("interrupted or a node lost: node 2 ("),
            std::string::npos)
      << nodes[0]->Err();
}

TEST(MultinodeFailure, HungNodeFailsTheRoundAfterNodeTimeout) {
  SavingPair p;
  StartSavingPair(&p);
  if (HasFatalFailure()) return;
  auto stopped_at = Clock::now();
  p.n1->Signal(SIGSTOP);  // alive but silent: no heartbeats, no progress
  int code = p.coord->Wait(30);
  double took = Since(stopped_at);
  EXPECT_EQ(code, 3) << p.coord->Err();
  EXPECT_LT(took, 4 + 10.0);
  EXPECT_NE(p.coord->Err().find("node 1 ("), std::string::npos)
      << p.coord->Err();
  EXPECT_NE(p.coord->Err().find("sent nothing for"), std::string::npos)
      << p.coord->Err();
  EXPECT_EQ(p.n0->Wait(15), 3);
  p.n1->Signal(SIGKILL);
}

TEST(MultinodeFailure, NodeAbortsAndExitsWhenTheCoordinatorDisappears) {
  Cluster c;
  auto coord = c.StartCoordinator(BigSaves(1));
  auto node = c.StartNode(0);
  ASSERT_TRUE(coord->WaitForOutput("save 1: step-1", 120)) << coord->Err();
  auto killed_at = Clock::now();
  coord->Signal(SIGKILL);
  int code = node->Wait(20);
  EXPECT_EQ(code, 3) << node->Err();
  EXPECT_LT(Since(killed_at), 15);
  EXPECT_NE(node->Err().find("lost the coordinator"), std::string::npos)
      << node->Err();
}

TEST(MultinodeFailure, SigintOnTheCoordinatorAbortsEveryNodeAndKeepsResults) {
  SavingPair p;
  StartSavingPair(&p);
  if (HasFatalFailure()) return;
  p.coord->Signal(SIGINT);
  EXPECT_EQ(p.coord->Wait(20), 3) << p.coord->Err();
  json j = json::parse(ReadFile(p.c.ResultPath()));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["errors"].back().get<std::string>().find("interrupted by SIGINT"),
            std::string::npos);
  EXPECT_EQ(j["rounds"][0]["status"], "ok");
  EXPECT_EQ(p.n0->Wait(15), 3);
  EXPECT_EQ(p.n1->Wait(15), 3);
  EXPECT_NE(
      p.n0->Err().find("interrupted or a node lost: interrupted by SIGINT"),
      std::string::npos)
      << p.n0->Err();
}

// A node preempted: SIGTERM on the node ends it with 3 at once, and the
// run with it: the coordinator and the other node exit 3.
TEST(MultinodeFailure, SigtermOnANodeEndsEveryProcessWithThree) {
  SavingPair p;
  StartSavingPair(&p);
  if (HasFatalFailure()) return;
  p.n1->Signal(SIGTERM);
  EXPECT_EQ(p.n1->Wait(10), 3) << p.n1->Err();
  EXPECT_EQ(p.coord->Wait(30), 3) << p.coord->Err();
  EXPECT_NE(p.coord->Err().find("node 1 ("), std::string::npos)
      << p.coord->Err();
  EXPECT_EQ(p.n0->Wait(15), 3) << p.n0->Err();
}

// A node's own failure (its storage gave back other bytes than were saved:
// a shard of node 1's ranks changed on disk between a save-only and a
// load-only run) is the run's failure, not a lost node: 1 from every
// process, which a restart would not fix. (Running a node out of file
// descriptors instead starved gRPC of one as well under ASan: the node then
// looked lost.)
TEST(MultinodeFailure, ANodesOwnFailureEndsEveryProcessWithOne) {
  Cluster c;
  Env env = {{"NUM_NODES", "2"}, {"CKPT_MODE", "save-only"}};
  {
    auto coord = c.StartCoordinator(env);
    auto n0 = c.StartNode(0);
    auto n1 = c.StartNode(1);
    ASSERT_EQ(coord->Wait(60), 0) << coord->Err();
  }
  // Rank 2 is node 1's first (2 ranks per node): one byte of its shard.
  const std::string shard = c.tmp().Sub("ckpt/checkpoints/step-1/__2_0.distcp");
  ASSERT_TRUE(fs::exists(shard));
  {
    std::fstream f(shard, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(fs::file_size(shard) / 2));
    const int b = f.get();
    f.seekp(static_cast<std::streamoff>(fs::file_size(shard) / 2));
    f.put(static_cast<char>(b ^ 0x5a));
  }
  env["CKPT_MODE"] = "load-only";
  auto coord = c.StartCoordinator(env, {"--overwrite"});
  auto n0 = c.StartNode(0);
  auto n1 = c.StartNode(1);
  EXPECT_EQ(coord->Wait(60), 1) << coord->Err();
  EXPECT_NE(coord->Err().find("node 1 ("), std::string::npos) << coord->Err();
  EXPECT_NE(coord->Err().find("__2_0.distcp"), std::string::npos)
      << coord->Err();
  EXPECT_EQ(n0->Wait(15), 1) << n0->Err();
  EXPECT_EQ(n1->Wait(15), 1) << n1->Err();
  EXPECT_NE(n0->Err().find("ended the run as failed"), std::string::npos)
      << n0->Err();
}

// Input to fix found once the nodes are there (the storage path runs
// through a file): 2 from every process.
TEST(MultinodeFailure,
     InputToFixFoundAfterTheNodesJoinedEndsEveryProcessWithTwo) {
  Cluster c;
  std::ofstream(c.tmp().Sub("afile")) << "";
  auto coord = c.StartCoordinator(
      {{"NUM_NODES", "2"}, {"CKPT_DIR_PATH", c.tmp().Sub("afile/ckpt")}});
  auto n0 = c.StartNode(0);
  auto n1 = c.StartNode(1);
  EXPECT_EQ(coord->Wait(60), 2) << coord->Err();
  EXPECT_NE(coord->Err().find("storage.path (CKPT_DIR_PATH) is not usable"),
            std::string::npos)
      << coord->Err();
  for (auto* n : {n0.get(), n1.get()}) {
    EXPECT_EQ(n->Wait(15), 2) << n->Err();
    EXPECT_NE(n->Err().find("input to fix: storage.path"), std::string::npos)
        << n->Err();
  }
}

}  // namespace
}  // namespace ckpt
