// Several nodes sharing one GCS bucket (the project's GCS test server):
// every node saves its ranks' shards under one prefix and loads them back,
// verified.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "tests/testing/cluster.h"
#include "tests/testing/gcs_server.h"

namespace ckpt {
namespace {

TEST(Multinode, NodesShareOneGcsBucket) {
  GcsTestServer server;
  Cluster c;
  Env gcs = {{"STORAGE_EMULATOR_HOST", server.url()},
             {"GCE_METADATA_HOST", "127.0.0.1:9"}};
  Env env = gcs;
  env["NUM_NODES"] = "2";
  env["CKPT_DIR_PATH"] = "gs://bucket/shared";
  auto coord = c.StartCoordinator(env);
  auto n0 = c.StartNode(0, gcs);
  auto n1 = c.StartNode(1, gcs);
  ASSERT_EQ(coord->Wait(60), 0) << coord->Err() << n0->Err() << n1->Err();
  auto j = nlohmann::json::parse(ReadFile(c.ResultPath()));
  EXPECT_EQ(j["environment"]["filesystem"], "gcs");
  bool loaded = false;
  for (const auto& round : j["rounds"]) {
    if (round["phase"] != "load") continue;
    loaded = true;
    EXPECT_TRUE(round["verified"].get<bool>());
    EXPECT_EQ(round["nodes"].size(), 2u);
  }
  EXPECT_TRUE(loaded);
  std::set<std::string> ranks;
  for (const auto& name : server.ObjectNames("bucket")) {
    size_t at = name.rfind("/__");
    if (at != std::string::npos &&
        name.find("checkpoints/") != std::string::npos)
      ranks.insert(name.substr(at + 3, name.find('_', at + 3) - at - 3));
  }
  // The cluster runs 2 ranks per node: all four ranks' shards, one prefix.
  EXPECT_EQ(ranks, (std::set<std::string>{"0", "1", "2", "3"}));
}

}  // namespace
}  // namespace ckpt
