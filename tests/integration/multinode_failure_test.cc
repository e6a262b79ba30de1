// Failure is a result, not a hang: dead, hung and interrupted processes.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "tests/testing/cluster.h"

namespace ckpt {
namespace {

using nlohmann::json;
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
  EXPECT_EQ(code, 1) << coord->Err();
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
  // The survivors were told to abort and exit non-zero.
  EXPECT_EQ(nodes[0]->Wait(15), 1) << nodes[0]->Err();
  EXPECT_EQ(nodes[1]->Wait(15), 1) << nodes[1]->Err();
}

TEST(MultinodeFailure, HungNodeFailsTheRoundAfterNodeTimeout) {
  Cluster c;
  auto coord = c.StartCoordinator(BigSaves(2));
  auto n0 = c.StartNode(0);
  auto n1 = c.StartNode(1);
  ASSERT_TRUE(coord->WaitForOutput("save 1: step-1", 120)) << coord->Err();
  auto stopped_at = Clock::now();
  n1->Signal(SIGSTOP);  // alive but silent: no heartbeats, no progress
  int code = coord->Wait(30);
  double took = Since(stopped_at);
  EXPECT_EQ(code, 1) << coord->Err();
  EXPECT_LT(took, 4 + 10.0);
  EXPECT_NE(coord->Err().find("node 1 ("), std::string::npos) << coord->Err();
  EXPECT_NE(coord->Err().find("sent nothing for"), std::string::npos)
      << coord->Err();
  EXPECT_EQ(n0->Wait(15), 1);
  n1->Signal(SIGKILL);
}

TEST(MultinodeFailure, NodeAbortsAndExitsWhenTheCoordinatorDisappears) {
  Cluster c;
  auto coord = c.StartCoordinator(BigSaves(1));
  auto node = c.StartNode(0);
  ASSERT_TRUE(coord->WaitForOutput("save 1: step-1", 120)) << coord->Err();
  auto killed_at = Clock::now();
  coord->Signal(SIGKILL);
  int code = node->Wait(20);
  EXPECT_EQ(code, 1) << node->Err();
  EXPECT_LT(Since(killed_at), 15);
  EXPECT_NE(node->Err().find("lost the coordinator"), std::string::npos)
      << node->Err();
}

TEST(MultinodeFailure, SigintOnTheCoordinatorAbortsEveryNodeAndKeepsResults) {
  Cluster c;
  auto coord = c.StartCoordinator(BigSaves(2));
  auto n0 = c.StartNode(0);
  auto n1 = c.StartNode(1);
  ASSERT_TRUE(coord->WaitForOutput("save 1: step-1", 120)) << coord->Err();
  coord->Signal(SIGINT);
  EXPECT_EQ(coord->Wait(20), 1) << coord->Err();
  json j = json::parse(ReadFile(c.ResultPath()));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["errors"].back().get<std::string>().find("interrupted by SIGINT"),
            std::string::npos);
  EXPECT_EQ(j["rounds"][0]["status"], "ok");
  EXPECT_EQ(n0->Wait(15), 1);
  EXPECT_EQ(n1->Wait(15), 1);
  EXPECT_NE(n0->Err().find("ended the run as failed"), std::string::npos)
      << n0->Err();
}

}  // namespace
}  // namespace ckpt
