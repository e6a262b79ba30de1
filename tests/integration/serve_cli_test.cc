// `ckptbench run` of the serve workload as a user runs it, on local disk:
// a generated model made, loaded verified by a replica of 2 ranks and
// written to result.json; a rerun that reuses it and reads it through
// mmap; one that downloads it to a local directory first (the copy gone
// after), and a download directory that is not an absolute path refused
// (exit 2) naming the key; and the removal.
#include "tests/testing/serve_cli.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "nlohmann/json.hpp"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using json = nlohmann::json;

TEST(ServeCli, MakesLoadsReusesRefusesAndRemoves) {
  TempDir t;
  const std::string model = t.Sub("store/models/llama-3-tiny-bf16");
  ProcessResult made = RunServeCli(t, "r1", {{"CKPT_SERVE_LOADS", "2"}});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_NE(made.out.find("serve, 1 replica(s) of 2 rank(s)"),
            std::string::npos)
      << made.out;
  EXPECT_NE(made.out.find("stream, tp x 2, verified"), std::string::npos)
      << made.out;
  json j = json::parse(ReadFile(t.Sub("r1/result.json")));
  EXPECT_EQ(j["workload"], "serve");
  EXPECT_EQ(j["serving_model"]["preset"], "llama-3-tiny");
  EXPECT_EQ(j["serving_model"]["written_files"], 5);
  EXPECT_EQ(j["serving_model"]["reused"], false);
  ASSERT_EQ(j["rounds"].size(), 3u);  // make, load 1, load 2
  const json& load = j["rounds"][2]["replica_load"];
  EXPECT_EQ(load["verified"], true);
  EXPECT_EQ(load["ranks"], 2);
  EXPECT_EQ(load["ranks_loaded"].size(), 2u);
  EXPECT_EQ(load["replicas"][0]["bytes"], load["read_bytes"]);
  // Cold, and shown so: every file's pages evicted before the clock, and
  // mincore found none of the model's bytes resident.
  const json& cache = j["rounds"][2]["page_cache"];
  EXPECT_NE(cache["method"], "none");
  EXPECT_EQ(cache["resident_bytes_at_start"], 0);
  EXPECT_EQ(cache["checked_bytes"], load["model_bytes"]);
  EXPECT_EQ(j["rounds"][2]["verified"], true);
  EXPECT_TRUE(std::filesystem::exists(model + "/ckptbench-model.json"));
  EXPECT_TRUE(std::filesystem::exists(model + "/model.safetensors.index.json"));

  ProcessResult again = RunServeCli(t, "r2");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("reused"), std::string::npos) << again.out;
  EXPECT_EQ(
      json::parse(ReadFile(t.Sub("r2/result.json")))["serving_model"]["reused"],
      true);

  ProcessResult mmap = RunServeCli(t, "r3", {{"CKPT_SERVE_READ_MODE", "mmap"}});
  ASSERT_EQ(mmap.exit_code, 0) << mmap.err;
  EXPECT_NE(mmap.out.find("mmap, tp x 2, verified"), std::string::npos)
      << mmap.out;

  std::filesystem::create_directory(t.Sub("local"));
  ProcessResult download =
      RunServeCli(t, "r5",
                  {{"CKPT_SERVE_READ_MODE", "download"},
                   {"CKPT_SERVE_DOWNLOAD_PATH", t.Sub("local")}});
  ASSERT_EQ(download.exit_code, 0) << download.err;
  EXPECT_NE(download.out.find("download (copied in "), std::string::npos)
      << download.out;
  j = json::parse(ReadFile(t.Sub("r5/result.json")));
  const json& copied = j["rounds"][1]["replica_load"];
  EXPECT_EQ(copied["read_mode"], "download");
  EXPECT_EQ(j["rounds"][1]["verified"], true);
  EXPECT_GT(copied["replicas"][0]["download_bytes"].get<uint64_t>(),
            copied["model_bytes"].get<uint64_t>());  // the index too
  EXPECT_LE(copied["replicas"][0]["download_seconds"].get<double>(),
            copied["replicas"][0]["headers_seconds"].get<double>());
  EXPECT_TRUE(std::filesystem::is_empty(t.Sub("local")));

  ProcessResult relative = RunServeCli(t, "r6",
                                       {{"CKPT_SERVE_READ_MODE", "download"},
                                        {"CKPT_SERVE_DOWNLOAD_PATH", "local"}});
  EXPECT_EQ(relative.exit_code, 2);
  EXPECT_NE(relative.err.find("CKPT_SERVE_DOWNLOAD_PATH"), std::string::npos)
      << relative.err;
  EXPECT_NE(relative.err.find("expected an absolute path"), std::string::npos)
      << relative.err;

  ProcessResult gone = RunServeCli(t, "r4", {{"CKPT_SERVE_REMOVE", "true"}});
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_FALSE(std::filesystem::exists(model));
  EXPECT_TRUE(std::filesystem::exists(t.Sub("store/models")));
}

}  // namespace
}  // namespace ckpt
