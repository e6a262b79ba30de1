// The serve workload across processes: a coordinator and two node agents
// over gRPC, each node one replica of 2 ranks. The make round splits the
// generated model's files between the nodes (the manifest written once,
// last, by the coordinator through node 0); each load round has both
// replicas read their tensor-parallel slices at once, every byte verified,
// in stream mode and then downloaded to each node's local directory first,
// the second replica started 0.4 s after the first (serve.stagger) on the
// instant the coordinator gave its node.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "nlohmann/json.hpp"
#include "tests/testing/cluster.h"

namespace ckpt {
namespace {

using json = nlohmann::json;

TEST(MultinodeServe, TwoReplicasMakeOneModelAndEachLoadsItOverGrpc) {
  Cluster c;
  const std::string model = c.tmp().Sub("models/tiny");
  Env env = {{"NUM_NODES", "2"},
             {"CKPT_WORKLOAD", "serve"},
             {"CKPT_SERVE_PATH", model},
             {"CKPT_MODEL", "llama-3-tiny"},
             {"CKPT_SERVE_FILE_BYTES", "1MiB"},
             {"CKPT_SERVE_CHUNK_SIZE", "128KiB"},
             {"CKPT_SERVE_SPLIT", "tp"}};
  {
    auto coord = c.StartCoordinator(env);
    auto n0 = c.StartNode(0);
    auto n1 = c.StartNode(1);
    ASSERT_EQ(coord->Wait(120), 0) << coord->Err();
    EXPECT_EQ(n0->Wait(10), 0) << n0->Err();
    EXPECT_EQ(n1->Wait(10), 0) << n1->Err();
  }
  json j = json::parse(ReadFile(c.ResultPath()));
  EXPECT_EQ(j["workload"], "serve");
  EXPECT_EQ(j["serving_model"]["reused"], false);
  ASSERT_EQ(j["rounds"].size(), 2u);  // make, load 1
  const json& make = j["rounds"][0];
  ASSERT_EQ(make["nodes"].size(), 2u);
  uint64_t written = 0;
  for (const json& n : make["nodes"]) {
    EXPECT_GT(n["bytes"].get<uint64_t>(), 0u) << n.dump();  // a share each
    written += n["bytes"].get<uint64_t>();
  }
  EXPECT_EQ(written, j["serving_model"]["written_bytes"].get<uint64_t>());
  EXPECT_TRUE(std::filesystem::exists(model + "/ckptbench-model.json"));
  const json& load = j["rounds"][1]["replica_load"];
  EXPECT_EQ(j["rounds"][1]["verified"], true);
  ASSERT_EQ(load["replicas"].size(), 2u);
  EXPECT_EQ(load["ranks_loaded"].size(), 4u);
  for (const json& p : load["replicas"]) {
    EXPECT_EQ(p["bytes"], load["read_bytes"]) << p.dump();
    EXPECT_EQ(p["header_reads"], 2 * 5 * 2);  // 5 files, 2 ranks
  }

  // Again, downloaded first: each node its own copy, gone after the load;
  // the second replica staggered.
  std::filesystem::create_directories(c.tmp().Sub("local"));
  env["CKPT_SERVE_STAGGER"] = "0.4";
  env["CKPT_SERVE_READ_MODE"] = "download";
  env["CKPT_SERVE_DOWNLOAD_PATH"] = c.tmp().Sub("local");
  {
    auto coord = c.StartCoordinator(env, {"--overwrite"});
    auto n0 = c.StartNode(0);
    auto n1 = c.StartNode(1);
    ASSERT_EQ(coord->Wait(120), 0) << coord->Err();
    EXPECT_EQ(n0->Wait(10), 0) << n0->Err();
    EXPECT_EQ(n1->Wait(10), 0) << n1->Err();
  }
  j = json::parse(ReadFile(c.ResultPath()));
  EXPECT_EQ(j["serving_model"]["reused"], true);
  const json& copied = j["rounds"][1]["replica_load"];
  EXPECT_EQ(copied["read_mode"], "download");
  EXPECT_EQ(j["rounds"][1]["verified"], true);
  ASSERT_EQ(copied["replicas"].size(), 2u);
  for (const json& p : copied["replicas"]) {
    EXPECT_GT(p["download_bytes"].get<uint64_t>(),
              copied["model_bytes"].get<uint64_t>());
    EXPECT_EQ(p["bytes"], copied["read_bytes"]);
  }
  const json& second = copied["replicas"][1];
  EXPECT_GE(second["start_seconds"].get<double>(), 0.4);
  EXPECT_LT(copied["replicas"][0]["start_seconds"].get<double>(), 0.4);
  EXPECT_GE(second["download_seconds"].get<double>(),
            second["start_seconds"].get<double>());
  EXPECT_GE(copied["fleet"]["all_loaded_seconds"].get<double>(), 0.4);
  EXPECT_TRUE(std::filesystem::is_empty(c.tmp().Sub("local")));
}

}  // namespace
}  // namespace ckpt
