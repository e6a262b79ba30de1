// The dataset workloads across processes: a coordinator and three node
// agents over gRPC. Datagen (run.workload=datagen): each node writes its
// share of one dataset on shared storage, the manifest written once, last.
// Dataload: an epoch whose six ranks on three nodes read every sample once.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/dataset/dataset_layout.h"
#include "common/dataset/dataset_manifest.h"
#include "nlohmann/json.hpp"
#include "node/dataset/dataset_bytes.h"
#include "tests/testing/cluster.h"

namespace ckpt {
namespace {

using json = nlohmann::json;

TEST(MultinodeDataset, ThreeNodesEachWriteTheirShareOfOneDataset) {
  Cluster c;
  const std::string ds = c.tmp().Sub("ds");
  auto coord = c.StartCoordinator({{"NUM_NODES", "3"},
                                   {"CKPT_WORKLOAD", "datagen"},
                                   {"CKPT_DATASET_PATH", ds},
                                   {"CKPT_DATASET_SAMPLES", "600"},
                                   {"CKPT_SAMPLE_BYTES", "40KiB"},
                                   {"CKPT_SAMPLE_SPREAD", "10KiB"},
                                   {"CKPT_SHARD_BYTES", "512KiB"}});
  std::vector<std::unique_ptr<Process>> nodes;
  for (int i = 0; i < 3; ++i) nodes.push_back(c.StartNode(i));
  ASSERT_EQ(coord->Wait(90), 0) << coord->Err();
  for (auto& n : nodes) EXPECT_EQ(n->Wait(10), 0) << n->Err();
  json j = json::parse(ReadFile(c.ResultPath()));
  ASSERT_EQ(j["rounds"].size(), 1u);
  const json& round = j["rounds"][0];
  EXPECT_EQ(round["workload"], "datagen");
  ASSERT_EQ(round["nodes"].size(), 3u);
  uint64_t sum = 0;
  for (const json& n : round["nodes"]) {
    EXPECT_GT(n["bytes"].get<uint64_t>(), 0u) << n.dump();
    sum += n["bytes"].get<uint64_t>();
  }
  DatasetSpec spec;
  spec.format = DatasetFormat::kTar;
  spec.samples = 600;
  spec.sample_bytes = 40 * 1024;
  spec.sample_spread = 10 * 1024;
  spec.shard_bytes = 512 * 1024;
  spec.seed = 1;
  const DatasetTotals totals = ComputeTotals(spec);
  EXPECT_EQ(sum, totals.bytes);
  EXPECT_EQ(j["dataset"]["written_samples"], 600);
  auto m = DatasetManifestFromJson(ReadFile(ds + "/" + kDatasetManifestName),
                                   "manifest");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->spec, spec);
  const ShardTable table = BuildShardTable(spec);
  for (uint64_t k = 0; k < table.shards(); ++k) {
    const std::string got = ReadFile(ds + "/" + ShardName(k));
    ShardImage img(spec, table.first_sample[k], table.first_sample[k + 1]);
    ASSERT_EQ(got.size(), img.size()) << k;
    EXPECT_EQ(
        img.FirstMismatch(0, reinterpret_cast<const unsigned char*>(got.data()),
                          got.size()),
        got.size())
        << k;
  }
}

TEST(MultinodeDataset, AThreeNodeEpochReadsEverySampleOnce) {
  Cluster c;
  const std::string ds = c.tmp().Sub("ds");
  const Env dataset = {{"CKPT_DATASET_PATH", ds},
                       {"CKPT_DATASET_SAMPLES", "600"},
                       {"CKPT_SAMPLE_BYTES", "20KiB"},
                       {"CKPT_SAMPLE_SPREAD", "5KiB"},
                       {"CKPT_SHARD_BYTES", "256KiB"}};
  {
    ProcessResult made = RunProcess({CkptbenchBinary(), "datagen", "-q",
                                     "--results-dir", c.tmp().Sub("made")},
                                    dataset);
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  Env env = dataset;
  env["NUM_NODES"] = "3";
  env["CKPT_WORKLOAD"] = "dataload";
  env["CKPT_EPOCHS"] = "1";
  env["CKPT_BATCH_SIZE"] = "10";
  env["CKPT_NUM_WORKERS"] = "2";
  auto coord = c.StartCoordinator(env);
  std::vector<std::unique_ptr<Process>> nodes;
  for (int i = 0; i < 3; ++i) nodes.push_back(c.StartNode(i));
  ASSERT_EQ(coord->Wait(90), 0) << coord->Err();
  for (auto& n : nodes) EXPECT_EQ(n->Wait(10), 0) << n->Err();
  json j = json::parse(ReadFile(c.ResultPath()));
  EXPECT_EQ(j["workload"], "dataload");
  ASSERT_EQ(j["rounds"].size(), 1u);
  const json& epoch = j["rounds"][0]["epoch"];
  EXPECT_EQ(epoch["samples"], 600);
  EXPECT_EQ(epoch["each_sample_once"], true);
  ASSERT_EQ(epoch["ranks"].size(), 6u);  // 3 nodes x NUM_DEVICES=2
  for (const json& r : epoch["ranks"]) EXPECT_EQ(r["samples"], 100) << r.dump();
  EXPECT_EQ(epoch["workers"].size(), 12u);
  EXPECT_EQ(j["rounds"][0]["nodes"].size(), 3u);
}

}  // namespace
}  // namespace ckpt
