// The workloads' choices (common/config_keys.h, WorkloadChoices): the
// names run.workload takes, in its order, and what else reaches a workload
// from the command line, each workload's own: a command of its own with
// its flags (main/cli.cc), and an experiment's `prepare:`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/checkpoint/checkpoint_keys.h"
#include "common/config.h"
#include "common/config_keys.h"
#include "common/experiment.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

TEST(WorkloadChoices, AreRunWorkloadsChoicesInItsOrder) {
  const KeyDef* key = FindKey("run.workload");
  ASSERT_NE(key, nullptr);
  std::vector<std::string> names;
  for (const WorkloadChoice& w : WorkloadChoices()) {
    names.push_back(w.name);
    EXPECT_NE(key->description.find(absl::StrCat(w.name, " (", w.does, ")")),
              std::string::npos)
        << w.name;
  }
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names.front(), kCheckpointWorkload);
  EXPECT_EQ(key->expected, "one of " + absl::StrJoin(names, ", "));
}

// The checkpoint's keys are its own (common/checkpoint/checkpoint_keys.cc)
// and sit where `ckptbench keys` has always listed them: each run right
// after the shared key it names, in its order, once.
TEST(WorkloadChoices, TheCheckpointsKeysSitWhereTheyAlwaysWere) {
  std::vector<WorkloadChoice> choices;
  const std::vector<KeysAfter> placed = AddCheckpointKeys(&choices);
  ASSERT_EQ(choices.size(), 1u);
  EXPECT_EQ(choices[0].name, kCheckpointWorkload);
  std::vector<std::string> table;
  for (const KeyDef& k : ConfigKeys()) table.push_back(k.key);
  std::vector<std::string> runs;
  for (const KeysAfter& run : placed) {
    auto at = std::find(table.begin(), table.end(), run.after);
    ASSERT_NE(at, table.end()) << run.after;
    for (const KeyDef& k : run.keys) {
      ++at;
      ASSERT_NE(at, table.end()) << k.key;
      EXPECT_EQ(*at, k.key) << "after " << run.after;
      EXPECT_EQ(std::count(table.begin(), table.end(), k.key), 1) << k.key;
      runs.push_back(k.key);
    }
  }
  // The order users have always seen, each run with the key after it.
  auto next = [&](const std::string& key) {
    auto at = std::find(table.begin(), table.end(), key);
    return at == table.end() || at + 1 == table.end() ? "" : *(at + 1);
  };
  EXPECT_EQ(runs, (std::vector<std::string>{
                      "sharding.strategy", "sharding.thread_count", "run.mode",
                      "run.num_save_calls", "run.num_load_calls", "run.async",
                      "run.interval", "run.mttf", "run.visible_timeout",
                      "load.rank_shift", "load.reshard_reads"}));
  EXPECT_EQ(next("cluster.staging"), "sharding.strategy");
  EXPECT_EQ(next("run.num_load_calls"), "run.seed");
  EXPECT_EQ(next("run.keep_all_steps"), "run.async");
  EXPECT_EQ(next("load.reshard_reads"), "run.progress_interval");
}

TEST(WorkloadChoices, ACommandsFlagsSetKeysOfTheTable) {
  std::vector<std::string> commands;
  for (const WorkloadChoice& w : WorkloadChoices()) {
    if (w.usage.empty()) {
      EXPECT_TRUE(w.flags.empty()) << w.name << ": flags without a command";
      continue;
    }
    commands.push_back(w.name);
    for (const WorkloadFlag& f : w.flags) {
      EXPECT_EQ(f.name.rfind("--", 0), 0u) << f.name;
      EXPECT_FALSE(f.help.empty()) << f.name;
      const size_t eq = f.applies.find('=');
      ASSERT_NE(eq, std::string::npos) << f.applies;
      const KeyDef* key = FindKey(f.applies.substr(0, eq));
      ASSERT_NE(key, nullptr) << f.applies;
      Config c;
      ASSERT_TRUE(key->set(c, f.applies.substr(eq + 1)).ok()) << f.applies;
      EXPECT_EQ(key->get(c), f.applies.substr(eq + 1));
    }
  }
  // `ckptbench datagen`, its --remove setting dataset.remove.
  ASSERT_EQ(commands, std::vector<std::string>{"datagen"});
  for (const WorkloadChoice& w : WorkloadChoices()) {
    if (w.name != commands[0]) continue;
    ASSERT_EQ(w.flags.size(), 1u);
    EXPECT_EQ(w.flags[0].name, "--remove");
    EXPECT_EQ(w.flags[0].applies, "dataset.remove=true");
  }
}

void WriteExperimentText(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(WorkloadChoices, AnExperimentIsPreparedOnlyByAWorkloadThatPrepares) {
  TempDir t;
  std::vector<std::string> preparers;
  for (const WorkloadChoice& w : WorkloadChoices()) {
    const std::string file = t.Sub(w.name + ".yaml");
    WriteExperimentText(file, absl::StrCat("prepare: ", w.name, "\n"));
    auto e = LoadExperiment(file, {});
    if (w.prepares.empty()) {
      ASSERT_FALSE(e.ok()) << w.name;
      EXPECT_NE(e.status().message().find(absl::StrCat(
                    file, ":1: prepare = '", w.name,
                    "': expected datagen (the points' dataset made first), "
                    "or no prepare: key")),
                std::string::npos)
          << e.status();
      continue;
    }
    preparers.push_back(w.name);
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(e->prepare, w.name);
  }
  EXPECT_EQ(preparers, std::vector<std::string>{"datagen"});
}

}  // namespace
}  // namespace ckpt
