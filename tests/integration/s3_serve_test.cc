// The serve workload on S3 (Swift with s3api): a generated model made in
// the bucket and byte-exact there as the AWS CLI (the peer client nobody
// here wrote) fetches it; loaded by one replica of 2 and of 4 ranks,
// whole files and tensor-parallel, every byte verified; downloaded to a
// local directory first and loaded from the copy; removed alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/integration/s3_fixture.h"
#include "tests/testing/source_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;

TEST_F(S3Test, ServeLoadsAModelMadeInTheBucketInEachSplit) {
  const std::string model = Uri("models/tiny");
  Env env = S3Env({{"CKPT_WORKLOAD", "serve"},
                   {"CKPT_SERVE_PATH", model},
                   {"CKPT_MODEL", "llama-3-tiny"},
                   {"CKPT_SERVE_FILE_BYTES", "1MiB"},
                   {"CKPT_SERVE_CHUNK_SIZE", "256KiB"},
                   {"CKPT_SERVE_CONCURRENCY", "4"}});
  int run = 0;
  for (const std::string ranks : {"2", "4"}) {
    for (const std::string split : {"files", "tp"}) {
      SCOPED_TRACE(ranks + " ranks, " + split);
      Env e = env;
      e["NUM_DEVICES"] = ranks;
      e["CKPT_SERVE_SPLIT"] = split;
      const std::string results = tmp_.Sub("r" + std::to_string(++run));
      auto r = Ckpt({"run", "-q", "--results-dir", results}, e);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      json j = json::parse(ReadFile(results + "/result.json"));
      EXPECT_EQ(j["serving_model"]["reused"], run > 1);
      const json& round = j["rounds"][1];
      const json& load = round["replica_load"];
      EXPECT_EQ(round["verified"], true);
      EXPECT_EQ(load["ranks_loaded"].size(), std::stoul(ranks));
      EXPECT_EQ(load["replicas"][0]["bytes"], load["read_bytes"]);
      EXPECT_GT(round["requests"].get<uint64_t>(), 0u);
    }
  }
  // download: the files and index copied whole (ranged GETs of 256 KiB),
  // then mapped from the copy, which goes after the load.
  {
    Env e = env;
    e["NUM_DEVICES"] = "2";
    e["CKPT_SERVE_READ_MODE"] = "download";
    e["CKPT_SERVE_DOWNLOAD_PATH"] = tmp_.Sub("local");
    std::filesystem::create_directory(tmp_.Sub("local"));
    const std::string results = tmp_.Sub("download");
    auto r = Ckpt({"run", "-q", "--results-dir", results}, e);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(ReadFile(results + "/result.json"));
    const json& load = j["rounds"][1]["replica_load"];
    EXPECT_EQ(j["rounds"][1]["verified"], true);
    const json& replica = load["replicas"][0];
    EXPECT_GT(replica["download_bytes"].get<uint64_t>(),
              load["model_bytes"].get<uint64_t>());
    EXPECT_GE(replica["download_requests"].get<uint64_t>(),
              load["model_bytes"].get<uint64_t>() / (256 << 10));
    EXPECT_EQ(replica["bytes"], load["read_bytes"]);
    EXPECT_TRUE(std::filesystem::is_empty(tmp_.Sub("local")));
  }
  // The files as a peer reads them: the AWS CLI fetches the model, and the
  // specification's reader accepts it.
  const std::string local = tmp_.Sub("fetched");
  auto cp = swift().Aws({"s3", "cp", "--recursive", model, local});
  ASSERT_EQ(cp.exit_code, 0) << cp.err;
  auto check = RunProcess(
      {"/usr/bin/python3", SourceDir() + "/tests/scripts/safetensors_spec.py",
       "check", local},
      {{"PATH", "/usr/bin:/bin"}});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("5 files, 21 tensors"), std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("config.json: LlamaForCausalLM"), std::string::npos)
      << check.out;

  Env remove = env;
  remove["CKPT_SERVE_REMOVE"] = "true";
  auto gone = Ckpt({"run", "-q", "--results-dir", tmp_.Sub("gone")}, remove);
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  auto ls = swift().Aws({"s3", "ls", "--recursive", Uri("")});
  EXPECT_EQ(ls.out.find("models/tiny/"), std::string::npos) << ls.out;
}

}  // namespace
}  // namespace ckpt
