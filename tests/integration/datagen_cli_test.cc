// `ckptbench datagen` as a user runs it: a tar dataset that GNU tar lists,
// result.json's dataset block, a rerun that reuses it, a different request
// refused with a non-zero exit naming the field, and --remove.
#include <gtest/gtest.h>

#include <filesystem>

#include "nlohmann/json.hpp"
#include "tests/testing/chromium.h"
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

// Epoch 1 on local disk is cold, proven: fadvise evicted the node's
// objects and mincore found none of their bytes resident before the first
// read. With warm epochs, epoch 2 leaves the cache alone and finds what
// epoch 1 read still resident, and says it is warm. The report, rendered
// in Chromium, has the data loader's section with its charts drawn.
TEST(DatagenCli, DataloadOnLocalDiskIsColdThenWarmOnRequest) {
  TempDir t;
  ASSERT_EQ(Datagen(t, {"-q"}, {{"CKPT_DATASET_SAMPLES", "300"}}).exit_code, 0);
  ProcessResult r =
      RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
                 {{"CKPT_DATASET_PATH", t.Sub("ds")},
                  {"CKPT_DATASET_SAMPLES", "300"},
                  {"CKPT_SHARD_BYTES", "1MiB"},
                  {"CKPT_WORKLOAD", "dataload"},
                  {"CKPT_EPOCHS", "2"},
                  {"CKPT_WARM_EPOCHS", "true"},
                  {"CKPT_COMPUTE_TIME", "0.002"},
                  {"CKPT_CACHE_MODE", "fadvise"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dataset: " + t.Sub("ds") + ", tar: 300 samples"),
            std::string::npos)
      << r.out;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  ASSERT_EQ(j["rounds"].size(), 2u);
  const json& cold = j["rounds"][0];
  const json& warm = j["rounds"][1];
  EXPECT_EQ(cold["workload"], "dataload");
  EXPECT_EQ(cold["epoch"]["warm"], false);
  EXPECT_EQ(cold["page_cache"]["method"], "fadvise_dontneed");
  EXPECT_EQ(cold["page_cache"]["resident_bytes_at_start"], 0);
  const uint64_t checked = cold["page_cache"]["checked_bytes"];
  EXPECT_EQ(j["dataset"]["samples"], 300);  // the dataset read
  EXPECT_EQ(checked, j["dataset"]["bytes"].get<uint64_t>());
  // The node's peak resident set: the process's code and heap, the
  // loader's buffers, a few bytes per sample.
  EXPECT_GT(cold["nodes"][0]["peak_rss_bytes"].get<uint64_t>(), 1u << 20);
  EXPECT_LT(cold["nodes"][0]["peak_rss_bytes"].get<uint64_t>(), 1u << 30);
  EXPECT_EQ(warm["epoch"]["warm"], true);
  EXPECT_EQ(warm["page_cache"]["method"], "none");
  EXPECT_EQ(warm["page_cache"]["checked_bytes"], checked);
  EXPECT_GE(warm["page_cache"]["resident_bytes_at_start"].get<uint64_t>(),
            checked * 9 / 10);

  ProcessResult rep =
      RunProcess({CkptbenchBinary(), "report", t.Sub("res")}, {});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  std::string dom, console;
  if (!RenderInChromium(t, t.Sub("res/report.html"), &dom, &console)) {
    GTEST_SKIP() << "no Chromium here to render the report";
  }
  EXPECT_EQ(console, "");
  EXPECT_NE(dom.find("The data loader"), std::string::npos);
  for (const char* chart :
       {"Samples per second, per epoch",
        "epoch 1 (cold): accelerator utilization per rank",
        "epoch 2 (warm): latency", "epoch 1 (cold): step time per 100 steps"}) {
    EXPECT_NE(dom.find(chart), std::string::npos) << chart;
  }
  EXPECT_NE(dom.find("MLPerf Storage: 90%"), std::string::npos);
  const auto [charts, drawn] = ChartsDrawn(dom);
  EXPECT_GE(charts, 7);  // rates, 2 x utilization, 2 x latency, 2 x steps
  EXPECT_EQ(drawn, charts);
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

// A size set alone brings its spread (auto: a sixth of it): 8 KiB samples
// failed on the default 25 KiB spread.
TEST(DatagenCli, ASampleSizeSetAloneBringsItsSpread) {
  TempDir t;
  ProcessResult r = Datagen(t, {"--results-dir", t.Sub("res")},
                            {{"CKPT_SAMPLE_BYTES", "8KiB"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["dataset"]["sample_bytes"], 8192);
  EXPECT_EQ(j["dataset"]["sample_spread"], 8192 / 6);
  ProcessResult keys = RunCkptbench({"keys"}, {});
  EXPECT_NE(keys.out.find("auto = a sixth of dataset.sample_bytes"),
            std::string::npos)
      << keys.out;
}

}  // namespace
}  // namespace ckpt
