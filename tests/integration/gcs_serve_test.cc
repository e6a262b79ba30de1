// The serve workload on GCS (the project's GCS test server, shown faithful
// by gcs_conformance_test): a generated model made in the bucket, its
// manifest last; loaded by one replica of 2 and of 4 ranks, whole files
// and tensor-parallel, each chunk a ranged GET and every byte verified; a
// file system's read mode refused for a bucket; the removal taking exactly
// the model's objects.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/testing/gcs_server.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;

class GcsServeTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> Env(const std::string& ranks,
                                         const std::string& split) {
    return {{"CKPT_WORKLOAD", "serve"},
            {"CKPT_DIR_PATH", "gs://bucket/bench"},
            {"STORAGE_EMULATOR_HOST", server_.url()},
            {"PROJECT", "test-project"},
            {"HOME", tmp_.path()},
            {"GCE_METADATA_HOST", "127.0.0.1:9"},  // never the real one
            {"CKPT_MODEL", "llama-3-tiny"},
            {"CKPT_SERVE_FILE_BYTES", "1MiB"},
            {"CKPT_SERVE_CHUNK_SIZE", "256KiB"},
            {"CKPT_SERVE_CONCURRENCY", "4"},
            {"CKPT_SERVE_SPLIT", split},
            {"NUM_DEVICES", ranks}};
  }
  ProcessResult Run(const std::map<std::string, std::string>& env,
                    const std::string& results) {
    return RunProcess(
        {CkptbenchBinary(), "run", "-q", "--results-dir", tmp_.Sub(results)},
        env);
  }
  json Result(const std::string& results) {
    return json::parse(ReadFile(tmp_.Sub(results + "/result.json")));
  }
  GcsTestServer server_;
  TempDir tmp_;
};

TEST_F(GcsServeTest, AReplicaLoadsAModelMadeInTheBucketInEachSplit) {
  const std::string prefix = "bench/models/llama-3-tiny-bf16/";
  int run = 0;
  for (const std::string ranks : {"2", "4"}) {
    for (const std::string split : {"files", "tp"}) {
      SCOPED_TRACE(ranks + " ranks, " + split);
      const std::string results = "r" + std::to_string(++run);
      auto r = Run(Env(ranks, split), results);
      ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
      json j = Result(results);
      EXPECT_EQ(j["serving_model"]["reused"], run > 1);
      const json& round = j["rounds"][1];
      const json& load = round["replica_load"];
      EXPECT_EQ(load["verified"], true);
      EXPECT_EQ(round["verified"], true);
      EXPECT_EQ(load["ranks"], std::stoi(ranks));
      EXPECT_EQ(load["ranks_loaded"].size(), std::stoul(ranks));
      EXPECT_EQ(load["replicas"][0]["bytes"], load["read_bytes"]);
      EXPECT_GT(load["replicas"][0]["requests"].get<uint64_t>(), 0u);
      // An object store holds no page cache of ours.
      EXPECT_EQ(round["page_cache"]["method"], "none");
    }
  }
  // The model's objects and its manifest, nothing else of ours there.
  std::vector<std::string> names = server_.ObjectNames("bucket");
  int files = 0;
  for (const std::string& n : names) {
    ASSERT_EQ(n.rfind(prefix, 0), 0u) << n;
    if (n.find(".safetensors") != std::string::npos &&
        n.find("index") == std::string::npos) {
      ++files;
    }
  }
  EXPECT_EQ(files, 5);
  EXPECT_TRUE(server_.ObjectBytes("bucket", prefix + "ckptbench-model.json"));
  EXPECT_TRUE(
      server_.ObjectBytes("bucket", prefix + "model.safetensors.index.json"));
  // Every tensor chunk was a ranged GET.
  int ranged = 0;
  for (const auto& q : server_.requests()) ranged += !q.range.empty();
  EXPECT_GT(ranged, 20);

  // mmap reads a file system: refused for a bucket before any round.
  auto env = Env("2", "tp");
  env["CKPT_SERVE_READ_MODE"] = "mmap";
  auto m = Run(env, "mmap");
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.err.find("expected stream or download for an object store"),
            std::string::npos)
      << m.err;

  // download: the files and index copied whole to a local directory, then
  // mapped from the copy; the copy goes after the load.
  env = Env("2", "tp");
  env["CKPT_SERVE_READ_MODE"] = "download";
  env["CKPT_SERVE_DOWNLOAD_PATH"] = tmp_.Sub("local");
  std::filesystem::create_directory(tmp_.Sub("local"));
  auto d = Run(env, "download");
  ASSERT_EQ(d.exit_code, 0) << d.err << d.out;
  json dj = Result("download");
  const json& dl = dj["rounds"][1]["replica_load"];
  EXPECT_EQ(dj["rounds"][1]["verified"], true);
  EXPECT_GT(dl["replicas"][0]["download_bytes"].get<uint64_t>(),
            dl["model_bytes"].get<uint64_t>());
  EXPECT_TRUE(std::filesystem::is_empty(tmp_.Sub("local")));

  env = Env("2", "tp");
  env["CKPT_SERVE_REMOVE"] = "true";
  auto gone = Run(env, "gone");
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  names = server_.ObjectNames("bucket");
  EXPECT_TRUE(std::none_of(
      names.begin(), names.end(),
      [&](const std::string& n) { return n.rfind(prefix, 0) == 0; }))
      << names.size() << " objects left";
}

}  // namespace
}  // namespace ckpt
