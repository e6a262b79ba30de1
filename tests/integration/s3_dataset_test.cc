// Datasets on S3 (Swift with s3api): shards ckptbench made, byte-exact in
// the bucket, read back by the data loader map-style and iterable and
// removed alone; a user's own prefix listed and read unverified. The AWS
// CLI is the peer client nobody here wrote.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/dataset_layout.h"
#include "node/dataset/dataset_bytes.h"
#include "tests/integration/s3_fixture.h"

namespace ckpt {
namespace {

using nlohmann::json;

TEST_F(S3Test, DatagenShardsAreByteExactReadOnceByTheLoaderAndRemovedAlone) {
  Env env = S3Env({{"CKPT_DATASET_PATH", Uri("data")},
                   {"CKPT_DATASET_SAMPLES", "200"},
                   {"CKPT_SAMPLE_BYTES", "40KiB"},
                   {"CKPT_SAMPLE_SPREAD", "10KiB"},
                   {"CKPT_SHARD_BYTES", "1MiB"}});
  auto r = Ckpt({"datagen", "-q", "--results-dir", tmp_.Sub("r1")}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(ReadFile(tmp_.Sub("r1/result.json")));
  EXPECT_EQ(j["dataset"]["written_samples"], 200);
  EXPECT_GT(j["rounds"][0]["requests"].get<uint64_t>(), 0u);
  DatasetSpec spec;
  spec.samples = 200;
  spec.sample_bytes = 40 * 1024;
  spec.sample_spread = 10 * 1024;
  spec.shard_bytes = 1 << 20;
  spec.seed = 1;
  const ShardTable table = BuildShardTable(spec);
  ASSERT_EQ(j["dataset"]["objects"], table.shards());
  const std::string local = tmp_.Sub("shard.tar");
  auto cp = swift().Aws({"s3", "cp", Uri("data/" + ShardName(1)), local});
  ASSERT_EQ(cp.exit_code, 0) << cp.err;
  const std::string got = ReadFile(local);
  ShardImage img(spec, table.first_sample[1], table.first_sample[2]);
  ASSERT_EQ(got.size(), img.size());
  EXPECT_EQ(
      img.FirstMismatch(0, reinterpret_cast<const unsigned char*>(got.data()),
                        got.size()),
      got.size());
  // Read back by two ranks' data loaders, map-style: ranged GETs of the
  // members, every sample verified and read once.
  Env load = env;
  load["CKPT_WORKLOAD"] = "dataload";
  load["CKPT_EPOCHS"] = "1";
  load["CKPT_NUM_WORKERS"] = "3";
  auto ld = Ckpt({"run", "-q", "--results-dir", tmp_.Sub("rl")}, load);
  ASSERT_EQ(ld.exit_code, 0) << ld.err;
  json l = json::parse(ReadFile(tmp_.Sub("rl/result.json")));
  const json& epoch = l["rounds"][0]["epoch"];
  EXPECT_EQ(epoch["each_sample_once"], true) << epoch.dump();
  EXPECT_EQ(l["rounds"][0]["page_cache"]["method"], "none");
  uint64_t requests = 0, connections = 0;
  for (const json& w : epoch["workers"]) {
    requests += w["requests"].get<uint64_t>();
    connections += w["new_connections"].get<uint64_t>();
  }
  EXPECT_EQ(requests, 200u);   // one GET per sample, no HEAD
  EXPECT_GE(connections, 6u);  // every worker its own
  // Iterable: each shard streamed whole by one worker, one GET each (a
  // shard is smaller than io.block_size), every sample once.
  load["CKPT_DATALOAD_ACCESS"] = "iterable";
  auto it = Ckpt({"run", "-q", "--results-dir", tmp_.Sub("ri")}, load);
  ASSERT_EQ(it.exit_code, 0) << it.err;
  const json i = json::parse(ReadFile(tmp_.Sub("ri/result.json")));
  const json& streamed = i["rounds"][0]["epoch"];
  EXPECT_EQ(streamed["access"], "iterable");
  EXPECT_EQ(streamed["each_sample_once"], true) << streamed.dump();
  uint64_t gets = 0, objects = 0;
  for (const json& w : streamed["workers"]) {
    gets += w["requests"].get<uint64_t>();
    objects += w["objects"].get<uint64_t>();
  }
  EXPECT_EQ(objects, table.shards());
  EXPECT_EQ(gets, table.shards());
  // A user's object beside it stays through the removal.
  ASSERT_EQ(
      swift().Aws({"s3", "cp", local, Uri("data/shards/mine.tar")}).exit_code,
      0);
  auto rm =
      Ckpt({"datagen", "--remove", "-q", "--results-dir", tmp_.Sub("r2")}, env);
  ASSERT_EQ(rm.exit_code, 0) << rm.err;
  auto ls = swift().Aws(
      {"s3api", "list-objects-v2", "--bucket", bucket_, "--prefix", "data/"});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("data/shards/mine.tar"), std::string::npos) << ls.out;
  EXPECT_EQ(ls.out.find("shard-0"), std::string::npos) << ls.out;
  EXPECT_EQ(ls.out.find("ckptbench-dataset.json"), std::string::npos);
}

// A user's own files under a prefix, uploaded by the AWS CLI (one with '&'
// and a space in its key, which the listing's XML escapes), read as a
// listed dataset: one LIST, then one GET per sample with no HEAD (the
// sizes come from the listing), every sample once, and the bytes said to
// be unverified.
TEST_F(S3Test, AUsersOwnPrefixIsListedAndReadWithOneGetPerSample) {
  std::filesystem::create_directories(tmp_.Sub("mine/sub"));
  uint64_t bytes = 0;
  for (int i = 0; i < 24; ++i) {
    const std::string name =
        i == 5 ? "sub/a&b c.jpg" : absl::StrCat(i % 2 ? "sub/" : "", i, ".jpg");
    std::ofstream(tmp_.Sub("mine/" + name)) << std::string(3000 + 101 * i, 'x');
    bytes += 3000 + 101 * i;
  }
  ASSERT_EQ(swift()
                .Aws({"s3", "cp", "--recursive", "--quiet", tmp_.Sub("mine"),
                      Uri("mine")})
                .exit_code,
            0);
  auto r = Ckpt({"run", "-q", "--results-dir", tmp_.Sub("rm")},
                S3Env({{"CKPT_DATASET_PATH", Uri("mine")},
                       {"CKPT_DATASET_SOURCE", "listed"},
                       {"CKPT_DATASET_FORMAT", "files"},
                       {"CKPT_WORKLOAD", "dataload"},
                       {"CKPT_EPOCHS", "1"},
                       {"CKPT_BATCH_SIZE", "2"},
                       {"CKPT_NUM_WORKERS", "3"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("not verified"), std::string::npos) << r.out;
  json j = json::parse(ReadFile(tmp_.Sub("rm/result.json")));
  EXPECT_EQ(j["dataset"]["samples"], 24);
  EXPECT_EQ(j["dataset"]["bytes"], bytes);
  EXPECT_EQ(j["dataset"]["verified"], false);
  EXPECT_GE(j["dataset"]["listing"]["list_requests"].get<uint64_t>(), 1u);
  const json& epoch = j["rounds"][0]["epoch"];
  EXPECT_EQ(epoch["each_sample_once"], true) << epoch.dump();
  EXPECT_EQ(epoch["bytes"], bytes);
  uint64_t requests = 0;
  for (const json& w : epoch["workers"]) {
    requests += w["requests"].get<uint64_t>();
  }
  EXPECT_EQ(requests, 24u);
}

}  // namespace
}  // namespace ckpt
