// Checkpoints while data streams, end to end through the ckptbench binary
// on local disk: a dataload epoch that saves the checkpoint every N
// batches, sync and async, the dip in samples/s in each save's window
// against the rest of the epoch, the save rounds as any save's, only this
// run's newest step kept, and a later load-only run restoring it.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;

// 1,200 files of 4 KiB over 2 ranks in batches of 4: 150 batches a rank,
// 8 ms of compute each (the loader, 2 workers a rank on local disk, keeps
// ahead: 1,000 samples/s); the NUM_LAYERS=1 model without optimizer state
// (53.5 MiB) saved after batches 40, 80 and 120.
std::map<std::string, std::string> Env(const TempDir& t, bool async) {
  return {{"CKPT_DATASET_PATH", t.Sub("data")},
          {"CKPT_DATASET_FORMAT", "files"},
          {"CKPT_DATASET_SAMPLES", "1200"},
          {"CKPT_SAMPLE_BYTES", "4KiB"},
          {"CKPT_SAMPLE_SPREAD", "0"},
          {"CKPT_DIR_PATH", t.Sub("ckpt")},
          {"NUM_DEVICES", "2"},
          {"NUM_LAYERS", "1"},
          {"CKPT_OPTIMIZER", "none"},
          {"CKPT_EPOCHS", "1"},
          {"CKPT_BATCH_SIZE", "4"},
          {"CKPT_NUM_WORKERS", "2"},
          {"CKPT_COMPUTE_TIME", "0.008"},
          {"CKPT_CHECKPOINT_EVERY", "40"},
          {"CKPT_ASYNC", async ? "true" : "false"},
          {"CKPT_MTTF", "24h"}};
}

class EpochCheckpointCli : public ::testing::TestWithParam<bool> {};

TEST_P(EpochCheckpointCli, SavesEveryNBatchesAndTheWindowsShowTheDip) {
  const bool async = GetParam();
  TempDir t;
  auto env = Env(t, async);
  auto g = RunCkptbench({"datagen", "-q", "--results-dir", t.Sub("gen")}, env);
  ASSERT_EQ(g.exit_code, 0) << g.err;
  env["CKPT_WORKLOAD"] = "dataload";
  auto r = RunCkptbench({"run", "--results-dir", t.Sub("res")}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("epoch 1 checkpoints"), std::string::npos) << r.out;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  const json& rounds = j["rounds"];
  ASSERT_EQ(rounds.size(), 4u) << rounds.dump();
  const json& epoch = rounds[0]["epoch"];
  EXPECT_EQ(rounds[0]["workload"], "dataload");
  EXPECT_TRUE(epoch["each_sample_once"].get<bool>());
  const json& cp = epoch["checkpoints"];
  ASSERT_EQ(cp["saves"].size(), 3u) << cp.dump();
  const double rest = cp["rest_samples_per_second"].get<double>();
  EXPECT_GT(rest, 500) << cp.dump();
  for (size_t k = 0; k < 3; ++k) {
    const json& save = rounds[k + 1];
    const json& w = cp["saves"][k];
    EXPECT_FALSE(save.contains("workload"));  // a checkpoint's round
    EXPECT_EQ(save["phase"], "save");
    EXPECT_EQ(save["status"], "ok") << save.dump();
    EXPECT_EQ(save["index"], k + 1);
    EXPECT_EQ(w["index"], k + 1);
    EXPECT_EQ(w["step"], save["step"]);
    EXPECT_EQ(w["batch"], 40 * (k + 1));
    EXPECT_EQ(save["staging"]["async"].get<bool>(), async);
    EXPECT_NE(save["nodes"][0]["filesystem"], "") << save["nodes"];
    const double window = w["window_seconds"].get<double>();
    const double held = w["blocked_seconds"].get<double>();
    const double in_window = w["window_samples_per_second"].get<double>();
    EXPECT_GT(window, 0);
    if (!async) {
      // Every rank held for the whole save: nothing consumed in its
      // window, where the rest of the epoch's rate would have gone on.
      EXPECT_EQ(w["window_samples"].get<uint64_t>(), 0u) << w.dump();
      EXPECT_EQ(in_window, 0) << w.dump();
      EXPECT_GE(held, 0.9 * window) << w.dump();
    } else {
      // Held while it staged; then the epoch's own rate for the rest of
      // the window, less what the disk writes take from 2 cores.
      EXPECT_LT(held, window) << w.dump();
      const double predicted = rest * (window - held);
      EXPECT_GE(w["window_samples"].get<double>(), 0.5 * predicted - 8)
          << w.dump();
    }
  }
  EXPECT_GT(j["goodput"]["interval_seconds"].get<double>(), 0.3);
  // result.json reads back whole (the report reads every field).
  auto rep = RunCkptbench({"report", t.Sub("res")}, {});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  // This run's newest step only: the older ones and the step claimed for a
  // fourth save removed.
  std::vector<std::string> steps;
  for (const auto& e :
       std::filesystem::directory_iterator(t.Sub("ckpt/checkpoints"))) {
    steps.push_back(e.path().filename().string());
  }
  ASSERT_EQ(steps.size(), 1u) << ::testing::PrintToString(steps);
  EXPECT_EQ(steps[0], "step-" + std::to_string(rounds[3]["step"].get<int>()));
  // Restored by a load-only run like any checkpoint.
  auto load = env;
  load["CKPT_WORKLOAD"] = "checkpoint";
  load["CKPT_CHECKPOINT_EVERY"] = "0";
  load["CKPT_ASYNC"] = "false";
  load["CKPT_MODE"] = "load-only";
  load["NUM_LOAD_CALLS"] = "1";
  auto l = RunCkptbench({"run", "-q", "--results-dir", t.Sub("load")}, load);
  ASSERT_EQ(l.exit_code, 0) << l.err;
  json lj = json::parse(ReadFile(t.Sub("load/result.json")));
  EXPECT_EQ(lj["rounds"][0]["step"], rounds[3]["step"]);
  EXPECT_TRUE(lj["rounds"][0]["verified"].get<bool>());
}

INSTANTIATE_TEST_SUITE_P(SyncAndAsync, EpochCheckpointCli,
                         ::testing::Values(false, true), [](const auto& info) {
                           return info.param ? "async" : "sync";
                         });

TEST(EpochCheckpointCli, BadCombinationsAreRefusedNamingTheKeys) {
  TempDir t;
  auto env = Env(t, false);
  env["CKPT_WORKLOAD"] = "dataload";
  env["CKPT_INTERVAL"] = "10s";
  auto r = RunCkptbench({"run", "-q", "--results-dir", t.Sub("a")}, env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("run.interval (CKPT_INTERVAL)"), std::string::npos)
      << r.err;
  env.erase("CKPT_INTERVAL");
  env["CKPT_CHECKPOINT_EVERY"] = "0";
  env["CKPT_FIND_ACCELERATORS"] = "8";
  env["CKPT_COMPUTE_TIME"] = "0";
  r = RunCkptbench({"run", "-q", "--results-dir", t.Sub("c")}, env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("dataload.find_accelerators (CKPT_FIND_ACCELERATORS) "
                       "= 8 with dataload.compute_time"),
            std::string::npos)
      << r.err;
  env.erase("CKPT_FIND_ACCELERATORS");
  // An epoch too short for one save: 1,200 samples over 2 ranks in
  // batches of 4 are 150 batches a rank (map-style); iterable, a node's
  // whole share is 300 batches.
  env["CKPT_COMPUTE_TIME"] = "0.008";
  env["CKPT_CHECKPOINT_EVERY"] = "151";
  r = RunCkptbench({"run", "-q", "--results-dir", t.Sub("d")}, env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("dataload.checkpoint_every (CKPT_CHECKPOINT_EVERY) = "
                       "151: expected at most 150, the batches each rank "
                       "has in an epoch (dataset.samples 1200 over 1 node(s) "
                       "x 2 rank(s), dataload.batch_size 4): no checkpoint "
                       "would be taken"),
            std::string::npos)
      << r.err;
  env["CKPT_DATALOAD_ACCESS"] = "iterable";
  r = RunCkptbench({"run", "-q", "--results-dir", t.Sub("e")}, env);
  EXPECT_EQ(r.err.find("no checkpoint would be taken"), std::string::npos)
      << r.err;  // it fails later: no dataset was made here
  env["CKPT_CHECKPOINT_EVERY"] = "301";
  r = RunCkptbench({"run", "-q", "--results-dir", t.Sub("f")}, env);
  EXPECT_NE(r.err.find("= 301: expected at most 300, the batches of a node's "
                       "share of the dataset"),
            std::string::npos)
      << r.err;
  env.erase("CKPT_DATALOAD_ACCESS");
  env["CKPT_CHECKPOINT_EVERY"] = "40";
  env["CKPT_WORKLOAD"] = "checkpoint";
  r = RunCkptbench({"run", "-q", "--results-dir", t.Sub("b")}, env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("dataload.checkpoint_every (CKPT_CHECKPOINT_EVERY)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace ckpt
