// load.rank_shift through the ckptbench binary on one node: rank r loads
// the shards rank r+K wrote, every byte verified against the writer's
// checksums; out-of-range and node-local shifts are clear errors. (Several
// nodes, the default one-node-over shift: tests/integration/multinode_test.)
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;

std::map<std::string, std::string> RankShiftEnv(
    const TempDir& t, std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> env = {{"CKPT_DIR_PATH", t.Sub("ckpt")},
                                            {"CKPT_CACHE_MODE", "fadvise"},
                                            {"NUM_DEVICES", "3"},
                                            {"NUM_LAYERS", "2"},
                                            {"NUM_SAVE_CALLS", "1"},
                                            {"NUM_LOAD_CALLS", "1"}};
  for (auto& [k, v] : extra) env[k] = v;
  return env;
}

TEST(RankShift, EachRankLoadsAndVerifiesTheShardsRankPlusKWrote) {
  TempDir t;
  auto r = RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
                      RankShiftEnv(t, {{"CKPT_RANK_SHIFT", "2"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["config"]["load.rank_shift"]["value"], "2");
  json load;
  for (const auto& round : j["rounds"]) {
    if (round["phase"] == "load") load = round;
  }
  ASSERT_FALSE(load.is_null());
  EXPECT_EQ(load["rank_shift"], 2);
  EXPECT_TRUE(load["verified"].get<bool>());
  ASSERT_EQ(load["ranks"].size(), 3u);
  for (const auto& rk : load["ranks"]) {
    EXPECT_EQ(rk["read_rank"], (rk["rank"].get<int>() + 2) % 3) << rk;
    EXPECT_TRUE(rk["verified"].get<bool>()) << rk;
  }
  // Ranks hold different amounts under fsdp-full sharding of 2 layers:
  // each rank read what its source wrote, so the bytes moved with it.
  json save;
  for (const auto& round : j["rounds"]) {
    if (round["phase"] == "save" && !round["staged"].get<bool>()) save = round;
  }
  for (const auto& rk : load["ranks"]) {
    const int src = rk["read_rank"].get<int>();
    EXPECT_EQ(rk["bytes"], save["ranks"][src]["bytes"]) << rk;
  }
  EXPECT_NE(j["notes"].dump().find("load.rank_shift = 2"), std::string::npos)
      << j["notes"];
}

TEST(RankShift, AShiftOfTheWorldSizeOrOnNodeLocalStorageIsAClearError) {
  TempDir t;
  auto wide = RunProcess({CkptbenchBinary(), "run"},
                         RankShiftEnv(t, {{"CKPT_RANK_SHIFT", "3"}}));
  EXPECT_EQ(wide.exit_code, 2) << wide.err;
  EXPECT_NE(wide.err.find("load.rank_shift (CKPT_RANK_SHIFT) = 3: expected "
                          "less than the world size, 3"),
            std::string::npos)
      << wide.err;
  EXPECT_FALSE(std::filesystem::exists(t.Sub("ckpt/checkpoints/step-1")));
  auto local = RunProcess(
      {CkptbenchBinary(), "run"},
      RankShiftEnv(t, {{"CKPT_RANK_SHIFT", "1"}, {"CKPT_NODE_LOCAL", "true"}}));
  EXPECT_EQ(local.exit_code, 2) << local.err;
  EXPECT_NE(local.err.find("storage.node_local=true"), std::string::npos)
      << local.err;
}

}  // namespace
}  // namespace ckpt
