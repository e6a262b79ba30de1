// Runs sharing one checkpoint path on local disk: each step is claimed
// (an exclusive mkdir) before any shard is written, so two runs started
// together commit distinct steps, and a save+load run loads the step it
// committed itself, not a newer one of another run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::unique_ptr<Process> Start(const TempDir& t, const std::string& name,
                               std::vector<std::string> args,
                               std::map<std::string, std::string> extra) {
  std::map<std::string, std::string> env = {{"CKPT_DIR_PATH", t.Sub("ckpt")},
                                            {"CKPT_CACHE_MODE", "fadvise"},
                                            {"NUM_DEVICES", "2"},
                                            {"NUM_LAYERS", "2"},
                                            {"CKPT_KEEP_ALL_STEPS", "true"}};
  for (auto& [k, v] : extra) env[k] = v;
  args.insert(args.begin(), CkptbenchBinary());
  args.insert(args.end(), {"--results-dir", t.Sub(name)});
  return std::make_unique<Process>(args, env);
}

json Result(const TempDir& t, const std::string& name, Process& p) {
  const std::string text = ReadFile(t.Sub(name + "/result.json"));
  EXPECT_FALSE(text.empty()) << p.Err();
  return text.empty() ? json::object() : json::parse(text);
}

TEST(StepClaim, TwoRunsStartedTogetherOnLocalDiskCommitDistinctSteps) {
  TempDir t;
  auto a = Start(t, "a", {"run", "--save-only"}, {{"NUM_SAVE_CALLS", "3"}});
  auto b = Start(t, "b", {"run", "--save-only"}, {{"NUM_SAVE_CALLS", "3"}});
  ASSERT_EQ(a->Wait(120), 0) << a->Err();
  ASSERT_EQ(b->Wait(120), 0) << b->Err();
  std::set<uint64_t> steps;
  for (auto [name, p] : {std::pair{"a", a.get()}, std::pair{"b", b.get()}}) {
    json j = Result(t, name, *p);
    const std::string run_id = j["run_id"];
    ASSERT_EQ(j["rounds"].size(), 3u);
    for (const auto& r : j["rounds"]) {
      ASSERT_EQ(r["status"], "ok");
      const uint64_t s = r["step"];
      EXPECT_TRUE(steps.insert(s).second) << "step " << s << " saved twice";
      const std::string dir =
          t.Sub("ckpt/checkpoints/step-" + std::to_string(s));
      EXPECT_TRUE(fs::exists(dir + "/.metadata")) << dir;
      // The claim inside names the run that saved the step.
      EXPECT_EQ(ReadFile(dir + "/.ckptbench-claim"), run_id) << dir;
    }
  }
  EXPECT_EQ(steps, (std::set<uint64_t>{1, 2, 3, 4, 5, 6}));
}

// Retention keeps each run's own newest step: a newer step of another run
// once made a run delete every step it had written.
TEST(StepClaim, EachRunKeepsItsOwnNewestStepWhenAnotherCommitsLater) {
  TempDir t;
  auto a = Start(t, "a", {"run", "--save-only"},
                 {{"NUM_SAVE_CALLS", "3"}, {"CKPT_KEEP_ALL_STEPS", "false"}});
  auto b = Start(t, "b", {"run", "--save-only"},
                 {{"NUM_SAVE_CALLS", "3"}, {"CKPT_KEEP_ALL_STEPS", "false"}});
  ASSERT_EQ(a->Wait(120), 0) << a->Err();
  ASSERT_EQ(b->Wait(120), 0) << b->Err();
  for (auto [name, p] : {std::pair{"a", a.get()}, std::pair{"b", b.get()}}) {
    json j = Result(t, name, *p);
    const uint64_t last = j["rounds"].back()["step"];
    EXPECT_TRUE(fs::exists(
        t.Sub("ckpt/checkpoints/step-" + std::to_string(last) + "/.metadata")))
        << name << " lost its newest step " << last;
    for (size_t i = 0; i + 1 < j["rounds"].size(); ++i) {
      const uint64_t older = j["rounds"][i]["step"];
      EXPECT_FALSE(
          fs::exists(t.Sub("ckpt/checkpoints/step-" + std::to_string(older))))
          << name << " kept its older step " << older;
    }
  }
}

TEST(StepClaim, ASaveLoadRunLoadsTheStepItCommittedItself) {
  TempDir t;
  // b keeps committing newer steps while a loads: a must still read its
  // own step (its loads are verified against its own bytes either way).
  auto b = Start(t, "b", {"run", "--save-only"}, {{"NUM_SAVE_CALLS", "6"}});
  auto a = Start(t, "a", {"run"},
                 {{"NUM_SAVE_CALLS", "1"}, {"NUM_LOAD_CALLS", "4"}});
  ASSERT_EQ(a->Wait(120), 0) << a->Err();
  ASSERT_EQ(b->Wait(120), 0) << b->Err();
  json j = Result(t, "a", *a);
  uint64_t saved = 0;
  for (const auto& r : j["rounds"]) {
    if (r["phase"] == "save") saved = r["step"];
    if (r["phase"] == "load") {
      EXPECT_EQ(r["step"], saved) << r.dump();
    }
  }
  EXPECT_GT(saved, 0u);
  json jb = Result(t, "b", *b);
  for (const auto& r : jb["rounds"]) EXPECT_NE(r["step"], saved);
}

TEST(StepClaim, AnotherRunsUncommittedStepIsLeftAlone) {
  TempDir t;
  // An uncommitted step-1 of another run (or a crashed one): not ours to
  // write over, nor to remove.
  fs::create_directories(t.Sub("ckpt/checkpoints/step-1"));
  std::ofstream(t.Sub("ckpt/checkpoints/step-1/__0_0.distcp")) << "theirs";
  auto a = Start(t, "a", {"run", "--save-only"}, {{"NUM_SAVE_CALLS", "1"}});
  ASSERT_EQ(a->Wait(120), 0) << a->Err();
  json j = Result(t, "a", *a);
  EXPECT_EQ(j["rounds"][0]["step"], 2);
  EXPECT_EQ(ReadFile(t.Sub("ckpt/checkpoints/step-1/__0_0.distcp")), "theirs");
}

}  // namespace
}  // namespace ckpt
