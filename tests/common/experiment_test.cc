#include "common/experiment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/checkpoint/checkpoint_options.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

TEST(Experiment, ProductOrderNamesAndRepeatPasses) {
  TempDir t;
  Write(t.Sub("e.yaml"),
        "name: e\nrepeat: 2\nsweep:\n  NUM_LAYERS: [1, 2]\n"
        "  io.block_size: 1MiB, 4MiB, 8MiB\n  NUM_DEVICES: 1\n");
  auto e = LoadExperiment(t.Sub("e.yaml"), {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(PointCount(*e), 6);
  auto runs = ExpandRuns(*e);
  ASSERT_EQ(runs.size(), 12u);
  // Last parameter fastest; a one-value parameter is not named.
  EXPECT_EQ(runs[0].name, "000-NUM_LAYERS=1,io.block_size=1MiB,repeat=1");
  EXPECT_EQ(runs[1].name, "001-NUM_LAYERS=1,io.block_size=4MiB,repeat=1");
  EXPECT_EQ(runs[3].name, "003-NUM_LAYERS=2,io.block_size=1MiB,repeat=1");
  // Repeat passes outermost; a point keeps its name across passes.
  EXPECT_EQ(runs[6].name, "006-NUM_LAYERS=1,io.block_size=1MiB,repeat=2");
  EXPECT_EQ(runs[6].point, 0);
  EXPECT_EQ(runs[6].point_name, runs[0].point_name);
  EXPECT_EQ(runs[6].values[2],
            (std::pair<std::string, std::string>{"NUM_DEVICES", "1"}));
  auto opts = RunLoadOptions(*e, runs[4]);
  ASSERT_TRUE(opts.ok());
  ASSERT_EQ(opts->final_values.size(), 3u);
  EXPECT_EQ(opts->final_values[1].key, "io.block_size");
  EXPECT_EQ(opts->final_values[1].value, "4MiB");
  EXPECT_EQ(opts->final_values[1].where, t.Sub("e.yaml") + ":5 (sweep)");
  auto loaded = LoadConfig(*opts);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->config.model.num_layers, 2);
  EXPECT_EQ(loaded->config.io.block_size, 4u << 20);
}

TEST(Experiment, GroupsComposeInOrderAndASweptGroupPicksItsFile) {
  TempDir t;
  Write(t.Sub("storage/a.yaml"), "storage:\n  path: /a\nio:\n  fsync: false\n");
  Write(t.Sub("storage/b.yaml"), "storage:\n  path: /b\n");
  Write(t.Sub("rounds/one.yaml"), "run:\n  num_save_calls: 1\n");
  Write(t.Sub("e.yaml"),
        "defaults:\n  - storage: a\n  - rounds: one\nrun:\n  num_save_calls: "
        "7\nsweep:\n  storage: [a, b]\n");
  auto e = LoadExperiment(t.Sub("e.yaml"), {});
  ASSERT_TRUE(e.ok()) << e.status();
  auto runs = ExpandRuns(*e);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].name, "001-storage=b");
  auto a = LoadConfig(*RunLoadOptions(*e, runs[0]));
  auto b = LoadConfig(*RunLoadOptions(*e, runs[1]));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->config.storage.path, "/a");
  EXPECT_FALSE(a->config.io.fsync);
  EXPECT_EQ(b->config.storage.path, "/b");
  EXPECT_TRUE(b->config.io.fsync);
  // The file's own keys beat its groups; sources name the group file.
  EXPECT_EQ(CheckpointOf(a->config).num_save_calls, 7);
  EXPECT_EQ(b->sources.at("storage.path"), t.Sub("storage/b.yaml") + ":2");
  // The command line replaces the file's sweep and selects a group.
  auto c = LoadExperiment(t.Sub("e.yaml"), {"storage=b", "repeat=3"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(PointCount(*c), 1);
  EXPECT_EQ(ExpandRuns(*c).size(), 3u);
  EXPECT_EQ(
      LoadConfig(*RunLoadOptions(*c, ExpandRuns(*c)[0]))->config.storage.path,
      "/b");
}

TEST(Experiment, ErrorsNameFileLineAndKey) {
  TempDir t;
  Write(t.Sub("g/x.yaml"), "modle:\n  name: transformer\n");
  struct Case {
    std::string yaml;
    std::vector<std::string> overrides;
    std::string want;
  } cases[] = {
      {"run:\n  num_save_calls: [1, 2]\n", {}, ":2: key 'run.num_save_calls'"},
      {"defaults:\n  - g: x\n", {}, "g/x.yaml:2: unknown key 'modle.name'"},
      {"defaults:\n  - g: ../x\n", {}, ":2: g = '../x'"},
      {"sweep:\n  NUM_LAYERS: []\n", {}, "expected values"},
      {"sweep:\n  NUM_LAYERS: 1\n",
       {"NUM_LAYRES=2"},
       "command line: unknown key"},
      {"repeat: x\n", {}, ":1: repeat = 'x'"},
  };
  for (const auto& c : cases) {
    Write(t.Sub("e.yaml"), c.yaml);
    auto e = LoadExperiment(t.Sub("e.yaml"), c.overrides);
    ASSERT_FALSE(e.ok()) << c.yaml;
    EXPECT_NE(std::string(e.status().message()).find(c.want), std::string::npos)
        << e.status().message();
  }
}

// A defaults: group names a directory beside the experiment, never a path
// ("- /abs/dir: opt" read /abs/dir/opt.yaml).
TEST(Experiment, AGroupThatIsAPathIsRefused) {
  TempDir t;
  Write(t.Sub("abs/opt.yaml"), "model:\n  num_layers: 3\n");
  for (const std::string& group : {t.Sub("abs"), std::string("a/b")}) {
    Write(t.Sub("x/e.yaml"), "defaults:\n  - " + group + ": opt\n");
    auto e = LoadExperiment(t.Sub("x/e.yaml"), {});
    ASSERT_FALSE(e.ok()) << group;
    EXPECT_NE(e.status().message().find("defaults: "), std::string::npos)
        << e.status();
    EXPECT_NE(e.status().message().find("not a path"), std::string::npos)
        << e.status();
  }
}

// smoke: entries apply only with --smoke, over the file's sweep and below
// the command line; prepare: takes only datagen.
TEST(Experiment, SmokeEntriesReplaceTheSweepOnlyWhenAskedAndPrepareIsDatagen) {
  TempDir t;
  Write(t.Sub("e.yaml"),
        "prepare: datagen\nrepeat: 3\nsweep:\n  NUM_LAYERS: [1, 2, 3]\n"
        "smoke:\n  NUM_LAYERS: 1,2\n  io.block_size: 1MiB\n  repeat: 1\n");
  auto full = LoadExperiment(t.Sub("e.yaml"), {});
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->prepare, "datagen");
  EXPECT_EQ(PointCount(*full), 3);
  EXPECT_EQ(full->repeat, 3);
  auto smoke = LoadExperiment(t.Sub("e.yaml"), {}, /*smoke=*/true);
  ASSERT_TRUE(smoke.ok()) << smoke.status();
  EXPECT_EQ(PointCount(*smoke), 2);
  EXPECT_EQ(smoke->repeat, 1);
  EXPECT_EQ(smoke->params[1].where, t.Sub("e.yaml") + ":7 (smoke)");
  auto cli = LoadExperiment(t.Sub("e.yaml"), {"NUM_LAYERS=4"}, true);
  ASSERT_TRUE(cli.ok()) << cli.status();
  EXPECT_EQ(PointCount(*cli), 1);
  EXPECT_EQ(cli->params[0].values, std::vector<std::string>{"4"});

  Write(t.Sub("bad.yaml"), "prepare: make\n");
  auto bad = LoadExperiment(t.Sub("bad.yaml"), {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                t.Sub("bad.yaml") + ":1: prepare = 'make': expected datagen"),
            std::string::npos)
      << bad.status();
  Write(t.Sub("none.yaml"), "sweep:\n  NUM_LAYERS: [1, 2]\n");
  auto none = LoadExperiment(t.Sub("none.yaml"), {}, true);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("has no smoke: entries"),
            std::string::npos);
}

}  // namespace
}  // namespace ckpt
