// `ckptbench datagen` as a user runs it: a tar dataset that GNU tar lists,
// result.json's dataset block, a rerun that reuses it, a different request
// refused with a non-zero exit naming the field, and --remove.
#include <gtest/gtest.h>

#include <filesystem>

#include "nlohmann/json.hpp"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using json = nlohmann::json;

ProcessResult Datagen(const TempDir& t, std::vector<std::string> args,
                      std::map<std::string, std::string> env = {}) {
  args.insert(args.begin(), {CkptbenchBinary(), "datagen"});
  env["CKPT_DATASET_PATH"] = t.Sub("ds");
  env["CKPT_DATASET_SAMPLES"] =
      env.count("CKPT_DATASET_SAMPLES") ? env["CKPT_DATASET_SAMPLES"] : "500";
  env["CKPT_SHARD_BYTES"] = "1MiB";
  return RunProcess(args, env);
}

TEST(DatagenCli, MakesReusesRefusesAndRemoves) {
  TempDir t;
  ProcessResult made = Datagen(t, {"--results-dir", t.Sub("r1")});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_NE(made.out.find("written: "), std::string::npos) << made.out;
  json j = json::parse(ReadFile(t.Sub("r1/result.json")));
  EXPECT_EQ(j["workload"], "datagen");
  EXPECT_EQ(j["dataset"]["samples"], 500);
  EXPECT_EQ(j["dataset"]["format"], "tar");
  EXPECT_EQ(j["dataset"]["written_samples"], 500);
  EXPECT_EQ(j["rounds"][0]["workload"], "datagen");
  const uint64_t shards = j["dataset"]["objects"];
  EXPECT_GT(shards, 50u);  // ~150 KiB samples, 1 MiB shards

  ProcessResult tar = RunProcess(
      {"/usr/bin/tar", "-tf", t.Sub("ds/shards/shard-000000.tar")}, {});
  ASSERT_EQ(tar.exit_code, 0) << tar.err;
  EXPECT_EQ(tar.out.substr(0, 32), "s0000000000.jpg\ns0000000000.cls\n");

  ProcessResult again = Datagen(t, {"--results-dir", t.Sub("r2")});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("reused"), std::string::npos) << again.out;
  EXPECT_EQ(json::parse(ReadFile(t.Sub("r2/result.json")))["dataset"]["reused"],
            true);

  ProcessResult other = Datagen(t, {"--results-dir", t.Sub("r3")},
                                {{"CKPT_DATASET_SAMPLES", "501"}});
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.err.find("samples 500 (asked: 501)"), std::string::npos)
      << other.err;
  // What was measured (the failed round) is still written.
  EXPECT_TRUE(std::filesystem::exists(t.Sub("r3/result.json")));

  ProcessResult gone = Datagen(t, {"--remove", "--results-dir", t.Sub("r4")});
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_FALSE(std::filesystem::exists(t.Sub("ds/ckptbench-dataset.json")));
  EXPECT_FALSE(std::filesystem::exists(t.Sub("ds/shards")));
  EXPECT_TRUE(std::filesystem::exists(t.Sub("ds")));  // not ckptbench's
}

TEST(DatagenCli, BadDatasetKeysAreOneLineNamingTheKey) {
  TempDir t;
  ProcessResult r = Datagen(t, {"-q"}, {{"CKPT_SAMPLE_SPREAD", "1GiB"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("dataset.sample_spread (CKPT_SAMPLE_SPREAD)"),
            std::string::npos)
      << r.err;
  r = Datagen(t, {"-q"}, {{"CKPT_DATASET_FORMAT", "zip"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("files, tar"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ckpt
