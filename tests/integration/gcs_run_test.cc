// `ckptbench run` with CKPT_DIR_PATH=gs://..., the env-var single-node mode
// as the GCS checkpoint benchmark's users run it, against the project's
// GCS test server: a save+load verified, a 429 storm retried and counted,
// missing credentials refused before any round, and a dataset made and
// read by a data loader.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/dataset/dataset_layout.h"
#include "node/dataset/dataset_bytes.h"
#include "tests/testing/gcs_server.h"
#include "tests/testing/result_files.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;

class GcsRunTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> Env() {
    return {{"CKPT_DIR_PATH", "gs://bucket/bench"},
            {"STORAGE_EMULATOR_HOST", server_.url()},
            {"PROJECT", "test-project"},
            {"HOME", tmp_.path()},
            {"GCE_METADATA_HOST", "127.0.0.1:9"},  // never the real one
            {"NUM_DEVICES", "2"},
            {"NUM_LAYERS", "1"},
            {"NUM_SAVE_CALLS", "1"},
            {"NUM_LOAD_CALLS", "1"},
            {"CKPT_GCS_CHUNK_SIZE", "4MiB"}};
  }
  ProcessResult Run(std::map<std::string, std::string> env) {
    return RunProcess(
        {CkptbenchBinary(), "run", "--results-dir", tmp_.Sub("res")}, env);
  }
  json Result() { return json::parse(ReadFile(tmp_.Sub("res/result.json"))); }
  GcsTestServer server_;
  TempDir tmp_;
};

TEST_F(GcsRunTest, SaveAndLoadThroughGcsAreVerifiedAndRecorded) {
  auto r = Run(Env());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  json j = Result();
  ASSERT_EQ(j["rounds"].size(), 2u);
  EXPECT_TRUE(j["rounds"][1]["verified"].get<bool>());
  EXPECT_GT(j["rounds"][0]["bytes"].get<uint64_t>(), 8u << 20);
  EXPECT_EQ(j["environment"]["filesystem"], "gcs");
  EXPECT_EQ(j["environment"]["storage"], "gs");
  const std::string fs = j["environment"]["mount_options"].dump();
  EXPECT_NE(fs.find("project=test-project"), std::string::npos) << fs;
  EXPECT_NE(fs.find("auth=emulator"), std::string::npos) << fs;
  int resumable = 0, ranged = 0;
  for (const auto& q : server_.requests()) {
    if (q.target.find("uploadType=resumable") != std::string::npos) ++resumable;
    if (!q.range.empty()) ++ranged;
  }
  EXPECT_GT(resumable, 0);
  EXPECT_GT(ranged, 0);
}

TEST_F(GcsRunTest, A429StormIsRetriedAndCounted) {
  server_.AddFault({"upload_id", 429, SIZE_MAX, false, 6});
  auto env = Env();
  env["CKPT_GCS_MAX_ATTEMPTS"] = "10";
  auto r = Run(env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = Result();
  EXPECT_EQ(server_.faults_injected(), 6);
  EXPECT_EQ(j["rounds"][0]["throttles"], 6);
  EXPECT_EQ(j["rounds"][0]["retries"], 6);
  // Per file: the 429s met by its upload (its chunks' workers included).
  EXPECT_EQ(FileColumnSum(j["rounds"][0], "retries"), 6u);
  EXPECT_EQ(FileColumnSum(j["rounds"][0], "requests"),
            j["rounds"][0]["requests"].get<uint64_t>());
  EXPECT_TRUE(j["rounds"][1]["verified"].get<bool>());
}

// A dataset on GCS: datagen's shards are byte-exact in the server, and a
// dataload epoch of two ranks reads each sample once, verified, with one
// ranged GET of its member's bytes (the size is known: no metadata GET).
TEST_F(GcsRunTest, ADatasetIsMadeThenReadWithOneRangedGetPerSample) {
  auto env = Env();
  env["CKPT_DATASET_PATH"] = "gs://bucket/ds";
  env["CKPT_DATASET_SAMPLES"] = "120";
  env["CKPT_SAMPLE_BYTES"] = "20KiB";
  env["CKPT_SAMPLE_SPREAD"] = "4KiB";
  env["CKPT_SHARD_BYTES"] = "256KiB";
  auto made = RunProcess(
      {CkptbenchBinary(), "datagen", "-q", "--results-dir", tmp_.Sub("made")},
      env);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  DatasetSpec spec;
  spec.samples = 120;
  spec.sample_bytes = 20 * 1024;
  spec.sample_spread = 4 * 1024;
  spec.shard_bytes = 256 * 1024;
  spec.seed = 1;
  const ShardTable table = BuildShardTable(spec);
  ASSERT_GT(table.shards(), 5u);
  const std::optional<std::string> got =
      server_.ObjectBytes("bucket", "ds/" + ShardName(1));
  ASSERT_TRUE(got.has_value());
  ShardImage img(spec, table.first_sample[1], table.first_sample[2]);
  ASSERT_EQ(got->size(), img.size());
  EXPECT_EQ(
      img.FirstMismatch(0, reinterpret_cast<const unsigned char*>(got->data()),
                        got->size()),
      got->size());
  const size_t before = server_.requests().size();
  env["CKPT_WORKLOAD"] = "dataload";
  env["CKPT_EPOCHS"] = "1";
  auto r = Run(env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = Result();
  const json& epoch = j["rounds"][0]["epoch"];
  EXPECT_EQ(epoch["samples"], 120);
  EXPECT_EQ(epoch["each_sample_once"], true) << epoch.dump();
  EXPECT_EQ(j["rounds"][0]["verified"], true);
  const std::vector<GcsServerRequest> requests = server_.requests();
  int shard_requests = 0, ranged = 0;
  for (size_t i = before; i < requests.size(); ++i) {
    if (requests[i].target.find("shard-") == std::string::npos) continue;
    ++shard_requests;
    if (requests[i].method == "GET" && !requests[i].range.empty()) ++ranged;
  }
  EXPECT_EQ(shard_requests, 120);
  EXPECT_EQ(ranged, 120);
}

TEST_F(GcsRunTest, MissingCredentialsAreOneClearErrorBeforeAnyRound) {
  auto env = Env();
  env.erase("STORAGE_EMULATOR_HOST");
  env["CKPT_GCS_ENDPOINT"] = server_.url();
  auto r = Run(env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("no GCS credentials"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GOOGLE_APPLICATION_CREDENTIALS"), std::string::npos);
  EXPECT_NE(r.err.find("metadata server"), std::string::npos) << r.err;
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(GcsRunTest, BadCredentialsAreOneClearErrorBeforeAnyRound) {
  auto env = Env();
  env.erase("STORAGE_EMULATOR_HOST");
  env["CKPT_GCS_ENDPOINT"] = server_.url();
  std::ofstream(tmp_.Sub("key.json")) << R"({"type":"service_account",)"
                                      << R"("client_email":"a@b.c",)"
                                      << R"("private_key":"not a key"})";
  env["GOOGLE_APPLICATION_CREDENTIALS"] = tmp_.Sub("key.json");
  auto r = Run(env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(tmp_.Sub("key.json")), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a PEM private key"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not a key\""), std::string::npos) << r.err;
  EXPECT_TRUE(server_.requests().empty());
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// --results-dir gs://...: node 0 writes result.json through the GCS backend;
// a second run is refused before any round and leaves it as it was.
TEST_F(GcsRunTest, ResultsGoToAGcsPrefix) {
  auto r = RunProcess(
      {CkptbenchBinary(), "run", "--results-dir", "gs://bucket/results/r1"},
      Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto data = server_.ObjectBytes("bucket", "results/r1/result.json");
  ASSERT_TRUE(data.has_value());
  json j = json::parse(*data);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["environment"]["storage"], "gs");
  auto again = RunProcess(
      {CkptbenchBinary(), "run", "--results-dir", "gs://bucket/results/r1"},
      Env());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("refusing to replace it"), std::string::npos)
      << again.err;
  EXPECT_EQ(json::parse(*server_.ObjectBytes(
                "bucket", "results/r1/result.json"))["run_id"],
            j["run_id"]);
}

}  // namespace
}  // namespace ckpt
