// Datasets on S3 (Swift with s3api): shards ckptbench made, byte-exact in
// the bucket, read back by the data loader map-style and iterable and
// removed alone; a user's own prefix listed and read unverified. The AWS
// CLI is the peer client nobody here wrote.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/dataset/dataset_layout.h"
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
  // The first batch's worker opened its connection (a TCP connect that
  // took time) and made a GET per sample of its batch; the parts add up.
  const json& first = epoch["first_batch"];
  ASSERT_TRUE(first.is_object()) << epoch.dump();
  const uint64_t read = first["samples_read"].get<uint64_t>();
  EXPECT_GT(read, 0u);
  EXPECT_EQ(first["requests"].get<uint64_t>(), read) << first.dump();
  EXPECT_GE(first["new_connections"].get<uint64_t>(), 1u) << first.dump();
  EXPECT_GT(first["connect_seconds"].get<double>(), 0) << first.dump();
  double parts = 0;
  for (const char* k :
       {"node_start_seconds", "worker_start_seconds", "connect_seconds",
        "reads_seconds", "handoff_seconds"}) {
    parts += first[k].get<double>();
  }
  EXPECT_NEAR(parts, epoch["first_batch_seconds"].get<double>(), 1e-6);
  EXPECT_GT(first["dataset_seconds"].get<double>(), 0);  // the manifest's GET
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

namespace ckpt {
namespace {

// Checkpoints while data streams from S3: the dataset (TAR shards) and
// the checkpoints (NUM_LAYERS=1 without optimizer state, 53.5 MiB, in
// multipart uploads) on Swift, 2 ranks x 2 workers, 12 ms of compute a
// batch of 4 (120 batches a rank), a save after every 30 batches of each
// rank, sync and async.
// A sync save holds every rank for its whole window (from both ranks at
// the batch to the commit: nothing is consumed in it); an async one only
// while it stages,
// so its window consumes at the rest of the epoch's rate for the rest of
// it, less what the uploads take from 2 cores shared with Swift. Then each
// run's newest step is left under the prefix (neither removes the other's),
// and a load-only run restores the newest.
TEST_F(S3Test, CheckpointsDuringAnEpochSaveToS3BesideTheDataItStreams) {
  Env env = S3Env({{"CKPT_DATASET_PATH", Uri("data")},
                   {"CKPT_DIR_PATH", Uri("run")},
                   {"CKPT_DATASET_SAMPLES", "960"},
                   {"CKPT_SAMPLE_BYTES", "8KiB"},
                   {"CKPT_SAMPLE_SPREAD", "0"},
                   {"CKPT_SHARD_BYTES", "256KiB"},
                   {"NUM_LAYERS", "1"},
                   {"CKPT_OPTIMIZER", "none"},
                   {"CKPT_EPOCHS", "1"},
                   {"CKPT_BATCH_SIZE", "4"},
                   {"CKPT_NUM_WORKERS", "2"},
                   {"CKPT_COMPUTE_TIME", "0.012"},
                   {"CKPT_CHECKPOINT_EVERY", "30"}});
  auto g = Ckpt({"datagen", "-q", "--results-dir", tmp_.Sub("gen")}, env);
  ASSERT_EQ(g.exit_code, 0) << g.err;
  env["CKPT_WORKLOAD"] = "dataload";
  std::vector<uint64_t> kept;
  for (const bool async : {false, true}) {
    SCOPED_TRACE(async ? "async" : "sync");
    env["CKPT_ASYNC"] = async ? "true" : "false";
    const std::string res = tmp_.Sub(async ? "async" : "sync");
    auto r = Ckpt({"run", "-q", "--results-dir", res}, env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json j = json::parse(ReadFile(res + "/result.json"));
    const json& rounds = j["rounds"];
    // 120 batches a rank: saves after 30, 60, 90 and 120.
    ASSERT_EQ(rounds.size(), 5u) << rounds.dump();
    const json& epoch = rounds[0]["epoch"];
    EXPECT_TRUE(epoch["each_sample_once"].get<bool>());
    const json& cp = epoch["checkpoints"];
    ASSERT_EQ(cp["saves"].size(), 4u);
    const double rest = cp["rest_samples_per_second"].get<double>();
    for (size_t k = 0; k < 4; ++k) {
      const json& save = rounds[k + 1];
      const json& w = cp["saves"][k];
      EXPECT_EQ(save["phase"], "save");
      EXPECT_EQ(save["status"], "ok") << save.dump();
      EXPECT_GT(save["requests"].get<uint64_t>(), 2u);  // multipart
      EXPECT_EQ(save["nodes"][0]["filesystem"], "s3") << save["nodes"];
      EXPECT_EQ(w["step"], save["step"]);
      const double window = w["window_seconds"].get<double>();
      const double held = w["blocked_seconds"].get<double>();
      if (!async) {
        EXPECT_EQ(w["window_samples"].get<uint64_t>(), 0u) << w.dump();
        EXPECT_GE(held, 0.9 * window) << w.dump();
      } else if (k < 3) {  // the last one persists after the last batch
        EXPECT_LT(held, window) << w.dump();
        EXPECT_GE(w["window_samples"].get<double>(),
                  0.4 * rest * (window - held) - 8)
            << w.dump();
      }
    }
    kept.push_back(rounds[4]["step"].get<uint64_t>());
  }
  const uint64_t last_step = kept.back();
  auto ls = swift().Aws(
      {"s3api", "list-objects-v2", "--bucket", bucket_, "--prefix", "run/"});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("step-" + std::to_string(last_step) + "/.metadata"),
            std::string::npos)
      << ls.out;
  for (uint64_t s = 1; s <= last_step; ++s) {
    const bool there =
        ls.out.find("step-" + std::to_string(s) + "/") != std::string::npos;
    EXPECT_EQ(there, s == kept[0] || s == kept[1]) << s << ": " << ls.out;
  }
  Env load = env;
  load["CKPT_WORKLOAD"] = "checkpoint";
  load["CKPT_CHECKPOINT_EVERY"] = "0";
  load["CKPT_ASYNC"] = "false";
  load["CKPT_MODE"] = "load-only";
  load["NUM_LOAD_CALLS"] = "1";
  auto l = Ckpt({"run", "-q", "--results-dir", tmp_.Sub("load")}, load);
  ASSERT_EQ(l.exit_code, 0) << l.err;
  const json lj = json::parse(ReadFile(tmp_.Sub("load/result.json")));
  EXPECT_EQ(lj["rounds"][0]["step"], last_step);
  EXPECT_TRUE(lj["rounds"][0]["verified"].get<bool>());
}

}  // namespace
}  // namespace ckpt
