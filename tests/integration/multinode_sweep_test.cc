// A sweep whose points span several nodes: the sweep process is the
// coordinator, the node agents register once and serve every run.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/testing/cluster.h"
#include "tests/testing/health_probe.h"

namespace ckpt {
namespace {

using nlohmann::json;

TEST(MultinodeSweep, PointsOnOneAndTwoNodesShareOneSetOfNodeAgents) {
  Cluster c;
  const std::string exp = c.tmp().Sub("scale.yaml");
  std::ofstream(exp) << "name: scale\n"
                        "sweep:\n  NUM_NODES: [1, 2]\n"
                        "model:\n  num_layers: 1\n"
                        "cluster:\n  num_devices: 1\n"
                        "run:\n  num_save_calls: 1\n  num_load_calls: 1\n"
                        "io:\n  cache_mode: fadvise\n";
  Process sweep(
      {CkptbenchBinary(), "sweep", exp, "--results-dir", c.ResultsDir()},
      {{"CKPT_DIR_PATH", c.tmp().Sub("ckpt")},
       {"CKPT_LISTEN", c.address()},
       {"CKPT_REGISTER_TIMEOUT", "30"},
       {"CKPT_NODE_TIMEOUT", "5"},
       {"CKPT_HEARTBEAT_INTERVAL", "0.5"},
       {"CKPT_PROGRESS_INTERVAL", "0.5"}});
  auto n0 = c.StartNode(0);
  auto n1 = c.StartNode(1);
  ASSERT_EQ(sweep.Wait(120), 0) << sweep.Err();
  EXPECT_EQ(n0->Wait(30), 0) << n0->Err();
  EXPECT_EQ(n1->Wait(30), 0) << n1->Err();
  for (int nodes : {1, 2}) {
    std::string dir = c.ResultsDir() + "/00" + std::to_string(nodes - 1) +
                      "-NUM_NODES=" + std::to_string(nodes);
    json j = json::parse(ReadFile(dir + "/result.json"));
    EXPECT_EQ(j["status"], "ok") << dir;
    EXPECT_EQ(j["plan"]["num_nodes"], nodes);
    EXPECT_EQ(j["clock"]["nodes"].size(), static_cast<size_t>(nodes));
    ASSERT_EQ(j["rounds"].size(), 2u);
    for (const auto& round : j["rounds"]) {
      EXPECT_EQ(round["nodes"].size(), static_cast<size_t>(nodes));
      if (round["phase"] == "load") {
        EXPECT_TRUE(round["verified"].get<bool>());
      }
    }
  }
  json collated =
      json::parse(ReadFile(c.ResultsDir() + "/collated_results.json"));
  EXPECT_EQ(collated["points"].size(), 2u);
}

// A sweep of single-node points serves no node agents, but a probe of the
// coordinator's health port still gets an answer while it runs.
TEST(MultinodeSweep, ASweepOnOneNodeAnswersHealthProbes) {
  Cluster c;
  const std::string exp = c.tmp().Sub("one.yaml");
  std::ofstream(exp) << "name: one\n"
                        "sweep:\n  NUM_LAYERS: [2, 3, 4]\n"
                        "repeat: 2\n"
                        "cluster:\n  num_devices: 1\n"
                        "run:\n  num_save_calls: 1\n  num_load_calls: 1\n"
                        "io:\n  cache_mode: fadvise\n";
  const int health = FreePort();
  Process sweep(
      {CkptbenchBinary(), "sweep", exp, "--results-dir", c.ResultsDir(), "-q"},
      {{"CKPT_DIR_PATH", c.tmp().Sub("ckpt")},
       {"CKPT_COORDINATOR_HEALTH_PORT", std::to_string(health)}});
  std::string error;
  EXPECT_EQ(ProbeHealth(health, 100, &error),
            grpc::health::v1::HealthCheckResponse::SERVING)
      << error << sweep.Err();
  EXPECT_EQ(sweep.Wait(120), 0) << sweep.Err();
}

}  // namespace
}  // namespace ckpt
