// The client checks itself, end to end through the ckptbench binary: with
// storage slower than the generator the round is the storage's; with the
// generator slowed below the storage (CKPTBENCH_TEST_GENERATE_DELAY_MS) the
// round is flagged client_bound, in result.json and on the terminal.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tests/testing/chromium.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;

// One rank, one file of 55.8 MiB (NUM_LAYERS=2, no optimizer state) in
// 4 MiB blocks, two blocks in flight, to null://mibps-32: storage takes
// each block in 125 ms while generating it takes a few ms.
std::map<std::string, std::string> PacedSave() {
  return {{"CKPT_DIR_PATH", "null://mibps-32"},
          {"CKPT_MODE", "save-only"},
          {"NUM_LAYERS", "2"},
          {"CKPT_OPTIMIZER", "none"},
          {"NUM_DEVICES", "1"},
          {"NUM_SAVE_CALLS", "1"},
          {"CKPT_BLOCK_SIZE", "4MiB"},
          {"CKPT_QUEUE_DEPTH", "2"}};
}

json TimedSave(const std::string& result_json) {
  json j = json::parse(ReadFile(result_json));
  for (const auto& r : j["rounds"]) {
    if (r["phase"] == "save" && !r["staged"].get<bool>()) return r;
  }
  ADD_FAILURE() << "no timed save round";
  return json::object();
}

bool HasFlag(const json& round, const std::string& flag) {
  const auto& f = round["flags"];
  return std::find(f.begin(), f.end(), flag) != f.end();
}

TEST(ClientBound, SlowStorageIsTheStoragesNumber) {
  TempDir t;
  std::vector<std::string> args = {CkptbenchBinary(), "run", "--results-dir",
                                   t.Sub("res")};
  auto r = RunProcess(args, PacedSave());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json save = TimedSave(t.Sub("res/result.json"));
  EXPECT_FALSE(HasFlag(save, "client_bound")) << save.dump();
  EXPECT_FALSE(save.contains("client_bound")) << save.dump();
  // The generator idled while the storage took the blocks.
  EXPECT_LT(save["nodes"][0]["data_busy"].get<double>(), 0.5) << save.dump();
  // What the node had left, for the staging-memory judgement.
  EXPECT_GT(save["nodes"][0]["memory_available_bytes"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.err.find("client-bound"), std::string::npos) << r.err;
}

TEST(ClientBound, AGeneratorSlowerThanTheStorageIsFlaggedAndNamed) {
  TempDir t;
  auto env = PacedSave();
  // 200 ms more per 4 MiB block: 20 MiB/s, below the storage's 32.
  env["CKPTBENCH_TEST_GENERATE_DELAY_MS"] = "200";
  std::vector<std::string> args = {CkptbenchBinary(), "run", "--results-dir",
                                   t.Sub("res")};
  auto r = RunProcess(args, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json save = TimedSave(t.Sub("res/result.json"));
  EXPECT_TRUE(HasFlag(save, "client_bound")) << save.dump();
  EXPECT_GT(save["nodes"][0]["data_busy"].get<double>(), 0.8) << save.dump();
  const std::string why = save.value("client_bound", "");
  EXPECT_NE(why.find("node 0"), std::string::npos) << why;
  EXPECT_NE(why.find("generating and checksumming"), std::string::npos) << why;
  EXPECT_NE(r.err.find("save 1 was client-bound: node 0"), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("1 of 1 rounds flagged client_bound"), std::string::npos)
      << r.out;
  // The report says it where a reader looks: the flagged round and why.
  auto rep = RunProcess({CkptbenchBinary(), "report", t.Sub("res")}, {});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  std::string dom, console;
  if (!RenderInChromium(t, t.Sub("res/report.html"), &dom, &console)) {
    dom = ReadFile(t.Sub("res/report.html"));
  }
  EXPECT_EQ(console, "");
  EXPECT_NE(dom.find("Flagged rounds"), std::string::npos);
  EXPECT_NE(dom.find("client-bound: node 0"), std::string::npos) << dom;
  EXPECT_NE(dom.find("generating and checksumming bytes"), std::string::npos);
}

}  // namespace
}  // namespace ckpt
