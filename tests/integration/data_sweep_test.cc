// The data-loading experiments shipped in conf/ (dataloading: loader kind x
// workers; data-shards: TAR shard sizes; file-sizes: small files vs large
// ones; accelerators: MLPerf Storage's search for the most accelerators;
// dataloading-checkpoints: an epoch with a checkpoint every N batches, sync
// and async, the file the compose profile and the JobSet overlay run),
// each in its smoke form (`ckptbench sweep FILE --smoke`) through
// the binary: every point's dataset made once first by datagen and reused,
// every epoch reading each sample once, and the report, opened in
// Chromium, drawing samples/s, utilization and step-time variance against
// the swept parameter.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/testing/chromium.h"
#include "tests/testing/source_dir.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct Shipped {
  const char* file;
  int runs;      // in the smoke form
  int datasets;  // distinct, each made once
  const char* swept;
  int saves = 0;  // checkpoints during each run's epoch
};

class DataSweep : public ::testing::TestWithParam<Shipped> {};

TEST_P(DataSweep, SmokeFormMakesEachDatasetOnceAndTheReportDrawsTheCharts) {
  const Shipped& s = GetParam();
  TempDir t;
  const std::string file = SourceDir() + "/conf/" + s.file + ".yaml";
  auto r = RunProcess({CkptbenchBinary(), "sweep", file, "--smoke", "-q",
                       "--results-dir", t.Sub("res")},
                      {{"CKPT_DIR_PATH", t.Sub("store")}, {"HOME", t.path()}});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("point (data loader)"), std::string::npos) << r.out;
  // Each dataset once, under storage.path's datasets/, made by the first
  // point that reads it; the others reuse it.
  int made = 0;
  for (const auto& e : fs::directory_iterator(t.Sub("store/datasets"))) {
    (void)e;
    ++made;
  }
  EXPECT_EQ(made, s.datasets);
  int prepares = 0;
  for (const auto& e : fs::directory_iterator(t.Sub("res/prepare"))) {
    json p = json::parse(ReadFile(e.path().string() + "/result.json"));
    EXPECT_EQ(p["workload"], "datagen");
    EXPECT_EQ(p["status"], "ok");
    ++prepares;
  }
  EXPECT_EQ(prepares, s.datasets);
  const json sweep = json::parse(ReadFile(t.Sub("res/sweep.json")));
  ASSERT_EQ(sweep["runs"].size(), static_cast<size_t>(s.runs));
  for (const json& run : sweep["runs"]) {
    const std::string dir = t.Sub("res/" + run["name"].get<std::string>());
    json j = json::parse(ReadFile(dir + "/result.json"));
    EXPECT_EQ(j["status"], "ok") << dir;
    const json& epoch = j["rounds"][0]["epoch"];
    EXPECT_TRUE(epoch["each_sample_once"].get<bool>()) << dir;
    // The epoch's saves, each a save round of the run as well.
    const size_t saves = static_cast<size_t>(s.saves);
    EXPECT_EQ(epoch.contains("checkpoints")
                  ? epoch["checkpoints"]["saves"].size()
                  : 0u,
              saves)
        << dir;
    size_t save_rounds = 0;
    for (const json& round : j["rounds"])
      save_rounds += round["phase"] == "save";
    EXPECT_EQ(save_rounds, saves) << dir;
  }
  const std::string html = t.Sub("res/report.html");
  const std::string text = ReadFile(html);
  EXPECT_NE(text.find("Data loader across the sweep"), std::string::npos);
  EXPECT_NE(text.find(std::string("samples/s against ") + s.swept),
            std::string::npos);
  std::string dom, console;
  if (!RenderInChromium(t, html, &dom, &console)) {
    GTEST_SKIP() << "no /usr/bin/chromium (scripts/install-deps.sh installs "
                    "it): the report was written but not opened";
  }
  EXPECT_EQ(console, "") << "the browser logged errors";
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      dom, m,
      std::regex("data-charts=\"(\\d+)\" data-charts-drawn=\"(\\d+)\"")));
  EXPECT_EQ(m[1], m[2]) << "charts present but not drawn";
  for (const char* title :
       {"samples/s against ", "accelerator utilization against ",
        "step-time standard deviation against "}) {
    EXPECT_NE(dom.find(std::string(title) + s.swept), std::string::npos)
        << title;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shipped, DataSweep,
    ::testing::Values(Shipped{"dataloading", 4, 1, "dataload.num_workers"},
                      Shipped{"data-shards", 2, 2, "dataset.shard_bytes"},
                      Shipped{"file-sizes", 2, 2, "data"},
                      Shipped{"accelerators", 2, 2, "data"},
                      Shipped{"dataloading-checkpoints", 2, 1, "run.async", 3}),
    [](const auto& info) {
      std::string name = info.param.file;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

}  // namespace
}  // namespace ckpt
