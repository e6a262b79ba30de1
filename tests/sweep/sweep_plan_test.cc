// A sweep checked before its first run (sweep/sweep_plan.h) and its results
// directory read back for --resume (sweep/sweep_dir.h).
#include "sweep/sweep_plan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "coordinator/json_codec.h"
#include "sweep/sweep_dir.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

absl::StatusOr<SweepPlan> Plan(TempDir& t, const std::string& yaml) {
  Write(t.Sub("e.yaml"), yaml);
  auto e = LoadExperiment(t.Sub("e.yaml"), {});
  if (!e.ok()) return e.status();
  return PlanSweep(*e);
}

TEST(SweepPlan, EveryPointGetsItsOwnSubPathOfTheStorage) {
  EXPECT_EQ(PointPath("/ckpt/", 3), "/ckpt/point-003");
  EXPECT_EQ(PointPath("s3://b/p", 12), "s3://b/p/point-012");
  TempDir t;
  auto plan = Plan(t, "name: e\nstorage:\n  path: " + t.Sub("ckpt") +
                          "\nsweep:\n  NUM_LAYERS: [1, 2]\n");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->runs.size(), 2u);
  ASSERT_EQ(plan->checked.size(), 2u);
  EXPECT_EQ(plan->checked[0].config.storage.path, t.Sub("ckpt/point-000"));
  EXPECT_EQ(plan->checked[1].config.storage.path, t.Sub("ckpt/point-001"));
  EXPECT_EQ(plan->checked[1].config.model.num_layers, 2);
  EXPECT_EQ(plan->max_nodes, 1);
}

TEST(SweepPlan, ABadPointOrAControlChannelThatVariesIsNamedBeforeAnyRun) {
  TempDir t;
  const std::string storage = "storage:\n  path: " + t.Sub("ckpt") + "\n";
  auto bad = Plan(t, "name: e\n" + storage + "sweep:\n  NUM_LAYERS: [1, -1]\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sweep run 001-NUM_LAYERS=-1: "),
            std::string::npos)
      << bad.status();
  auto varies = Plan(
      t, "name: e\n" + storage + "sweep:\n  control.node_timeout: [10, 20]\n");
  ASSERT_FALSE(varies.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(varies.status())) << varies.status();
  EXPECT_NE(varies.status().message().find(
                "sweep run 001-control.node_timeout=20: control.* / tls.* / "
                "auth.* differ between points"),
            std::string::npos)
      << varies.status();
  Config a, b;
  EXPECT_TRUE(SameControl(a, b).ok());
  b.control.token = "other";
  EXPECT_FALSE(SameControl(a, b).ok());
}

TEST(SweepDir, ResumeReadsTheManifestAndWhichRunsFinished) {
  TempDir t;
  nlohmann::json manifest = {
      {"runs", {{{"name", "000-a"}}, {{"name", "001-b"}}}}};
  Write(t.Sub("sweep.json"), manifest.dump());
  EXPECT_TRUE(CheckSameSweep(t.Sub("sweep.json"), manifest).ok());
  nlohmann::json other = {{"runs", {{{"name", "000-a"}}, {{"name", "001-c"}}}}};
  absl::Status s = CheckSameSweep(t.Sub("sweep.json"), other);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("a different sweep: run 1 was '001-b', this "
                             "sweep's is '001-c'"),
            std::string::npos)
      << s;
  s = CheckSameSweep(t.Sub("none.json"), manifest);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--resume needs the --results-dir of an earlier "
                             "sweep"),
            std::string::npos)
      << s;
  Write(t.Sub("junk.json"), "[1, 2]");
  EXPECT_FALSE(CheckSameSweep(t.Sub("junk.json"), manifest).ok());

  RunResult ok;
  Write(t.Sub("ok/result.json"), ResultToJson(ok));
  EXPECT_TRUE(FinishedOk(t.Sub("ok")));
  RunResult failed;
  failed.status = RunStatus::kFailed;
  Write(t.Sub("failed/result.json"), ResultToJson(failed));
  EXPECT_FALSE(FinishedOk(t.Sub("failed")));
  EXPECT_FALSE(FinishedOk(t.Sub("missing")));
  // A result that cannot be read into the types that wrote it: run again.
  Write(t.Sub("odd/result.json"), R"({"status": "ok", "rounds": 7})");
  EXPECT_FALSE(FinishedOk(t.Sub("odd")));
  EXPECT_EQ(DefaultSweepDir().rfind("multirun/", 0), 0u);
}

// The results directory a sweep opens (`ckptbench sweep --results-dir`,
// `--resume`): a new one gets the manifest first; a resume takes only the
// same sweep's, and starts one where none is yet.
TEST(SweepDir, OpensANewSweepOrResumesOnlyTheSameOne) {
  TempDir t;
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  nlohmann::json manifest = {
      {"runs", {{{"name", "000-a"}}, {{"name", "001-b"}}}}};
  const std::string dir = t.Sub("new/nested");
  auto opened = OpenSweepDir(dir, false, manifest);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(*opened, dir);
  const std::string written = slurp(dir + "/sweep.json");
  EXPECT_EQ(nlohmann::json::parse(written), manifest);

  // Not again without --resume: the runs there are another start's.
  auto again = OpenSweepDir(dir, false, manifest);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(again.status()));
  EXPECT_NE(
      again.status().message().find("already holds a sweep (" + dir +
                                    "/sweep.json); finish it with --resume"),
      std::string::npos)
      << again.status();
  // --resume of the same sweep: the directory, its manifest untouched.
  auto resumed = OpenSweepDir(dir, true, manifest);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(*resumed, dir);
  EXPECT_EQ(slurp(dir + "/sweep.json"), written);
  // --resume of another sweep's directory is refused, naming the run.
  nlohmann::json other = {{"runs", {{{"name", "000-a"}}, {{"name", "001-c"}}}}};
  auto wrong = OpenSweepDir(dir, true, other);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("a different sweep: run 1"),
            std::string::npos)
      << wrong.status();
  EXPECT_EQ(slurp(dir + "/sweep.json"), written);
  // --resume where no sweep started yet starts it (a JobSet's first start).
  auto first = OpenSweepDir(t.Sub("fresh"), true, manifest);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(nlohmann::json::parse(slurp(t.Sub("fresh/sweep.json"))), manifest);

  // What is refused before anything is written.
  auto bucket = OpenSweepDir("s3://bucket/sweeps", false, manifest);
  ASSERT_FALSE(bucket.ok());
  EXPECT_NE(bucket.status().message().find(
                "sweep --results-dir s3://bucket/sweeps: expected a local "
                "directory"),
            std::string::npos)
      << bucket.status();
  EXPECT_FALSE(OpenSweepDir("gs://b/s", true, manifest).ok());
  auto nowhere = OpenSweepDir("", true, manifest);
  ASSERT_FALSE(nowhere.ok());
  EXPECT_NE(nowhere.status().message().find(
                "sweep --resume: expected --results-dir DIR"),
            std::string::npos)
      << nowhere.status();
}

}  // namespace
}  // namespace ckpt
