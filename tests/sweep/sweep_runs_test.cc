// A sweep's run loop (sweep/sweep_runs.h) with a scripted run in place of
// `ckptbench run`: --resume skips what finished and runs a failed run
// again with its result kept aside, a signal stops the loop and keeps the
// interrupted run's partial result aside (a run that finished before the
// signal is kept), a run that lost a node stops it too, failures are
// counted, and every
// run of a single-node sweep gets the same in-process node.
#include "sweep/sweep_runs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "coordinator/json_codec.h"
#include "sweep/sweep_dir.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

void WriteResult(const std::string& run_dir, RunStatus status) {
  fs::create_directories(run_dir);
  RunResult r;
  r.status = status;
  std::ofstream(fs::path(run_dir) / "result.json") << ResultToJson(r);
}

// A run that finishes, noting its index in *ran.
SweepRuns::RunFn FinishEach(std::vector<size_t>* ran) {
  return [ran](const SweepRunTarget& target) {
    ran->push_back(target.index);
    WriteResult(target.dir, RunStatus::kOk);
    return 0;
  };
}

// A sweep of `n` single-node runs, each on its own storage path.
absl::StatusOr<SweepPlan> PlanOf(TempDir& t, int n) {
  std::string values;
  for (int i = 1; i <= n; ++i) {
    values += (i > 1 ? ", " : "") + std::to_string(i);
  }
  std::ofstream(t.Sub("e.yaml"))
      << "name: e\nstorage:\n  path: " << t.Sub("ckpt")
      << "\nsweep:\n  NUM_LAYERS: [" << values << "]\n";
  auto e = LoadExperiment(t.Sub("e.yaml"), {});
  if (!e.ok()) return e.status();
  return PlanSweep(*e);
}

TEST(SweepRuns, ResumeSkipsWhatFinishedAndRunsAFailedRunAgain) {
  TempDir t;
  auto plan = PlanOf(t, 4);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string dir = t.Sub("sweep");
  const std::string ok0 = dir + "/" + plan->runs[0].name;
  const std::string failed1 = dir + "/" + plan->runs[1].name;
  WriteResult(ok0, RunStatus::kOk);
  WriteResult(failed1, RunStatus::kFailed);
  std::vector<size_t> ran;
  std::vector<NodeClient*> nodes;
  SweepRuns sweep(
      *plan, dir,
      [&](const SweepRunTarget& target) {
        ran.push_back(target.index);
        EXPECT_EQ(target.dir, dir + "/" + plan->runs[target.index].name);
        EXPECT_TRUE(target.clocks.empty());
        EXPECT_EQ(target.nodes.size(), 1u);
        nodes.insert(nodes.end(), target.nodes.begin(), target.nodes.end());
        // Run 3 fails; the others finish.
        const bool fails = target.index == 3;
        WriteResult(target.dir, fails ? RunStatus::kFailed : RunStatus::kOk);
        return fails ? 1 : 0;
      },
      [] { return std::string(); });
  ASSERT_TRUE(sweep.Serve(nullptr).ok());
  sweep.RunAll();
  EXPECT_EQ(ran, (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(sweep.done_before(), 1);
  EXPECT_EQ(sweep.failed(), 1);
  EXPECT_TRUE(sweep.interrupted().empty());
  // The failed run's first result is kept beside the new one.
  EXPECT_TRUE(fs::exists(failed1 + "/result.failed.json"));
  EXPECT_TRUE(FinishedOk(failed1));
  // One in-process node for every run: its storage stays warm.
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0], nodes[1]);
  EXPECT_EQ(nodes[1], nodes[2]);
  EXPECT_EQ(nodes[0]->index(), 0);
}

// A run that exits 3 with no signal lost a node: the runs after it would
// fail at once for want of it, so the loop stops there (it ran them all,
// each failing); the run's failed result stays, and a resume runs it again
// with the rest.
TEST(SweepRuns, ARunThatLostANodeStopsTheLoop) {
  TempDir t;
  auto plan = PlanOf(t, 4);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string dir = t.Sub("sweep");
  std::vector<size_t> ran;
  SweepRuns sweep(
      *plan, dir,
      [&](const SweepRunTarget& target) {
        ran.push_back(target.index);
        const bool lost = target.index == 1;
        WriteResult(target.dir, lost ? RunStatus::kFailed : RunStatus::kOk);
        return lost ? ToInt(ExitCode::kInterrupted) : 0;
      },
      [] { return std::string(); });
  sweep.RunAll();
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(sweep.lost_node(), plan->runs[1].name);
  EXPECT_TRUE(sweep.interrupted().empty());
  EXPECT_EQ(sweep.failed(), 1);
  const std::string run1 = dir + "/" + plan->runs[1].name;
  EXPECT_TRUE(fs::exists(run1 + "/result.json"));
  EXPECT_FALSE(FinishedOk(run1));

  SweepRuns resumed(*plan, dir, FinishEach(&ran), [] { return std::string(); });
  resumed.RunAll();
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1, 1, 2, 3}));
  EXPECT_TRUE(resumed.lost_node().empty());
  EXPECT_TRUE(fs::exists(run1 + "/result.failed.json"));
}

TEST(SweepRuns, ASignalStopsTheLoopAndKeepsTheInterruptedRunAside) {
  TempDir t;
  auto plan = PlanOf(t, 3);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string dir = t.Sub("sweep");
  std::string signal;
  std::vector<size_t> ran;
  SweepRuns sweep(
      *plan, dir,
      [&](const SweepRunTarget& target) {
        ran.push_back(target.index);
        WriteResult(target.dir,
                    target.index == 1 ? RunStatus::kFailed : RunStatus::kOk);
        if (target.index == 1) signal = "SIGTERM";  // arrives mid-run
        return target.index == 1 ? 1 : 0;
      },
      [&] { return signal; });
  sweep.RunAll();
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(sweep.interrupted(), "SIGTERM");
  EXPECT_EQ(sweep.failed(), 0);  // interrupted, not failed
  const std::string run1 = dir + "/" + plan->runs[1].name;
  EXPECT_FALSE(fs::exists(run1 + "/result.json"));
  EXPECT_TRUE(fs::exists(run1 + "/result.interrupted.json"));
  EXPECT_TRUE(FinishedOk(dir + "/" + plan->runs[0].name));

  // Resumed while the signal still stands: nothing runs.
  SweepRuns again(
      *plan, dir,
      [&](const SweepRunTarget& target) {
        ran.push_back(target.index);
        return 0;
      },
      [&] { return signal; });
  again.RunAll();
  EXPECT_EQ(ran.size(), 2u);
  EXPECT_EQ(again.done_before(), 1);
  EXPECT_EQ(again.interrupted(), "SIGTERM");
  // Resumed after it: the interrupted run and the rest run.
  signal.clear();
  SweepRuns resumed(*plan, dir, FinishEach(&ran), [&] { return signal; });
  resumed.RunAll();
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1, 1, 2}));
  EXPECT_EQ(resumed.done_before(), 1);
}

// CI showed the race: the signal came just after run 1 had written its
// result (the sweep test sends it on seeing that), before the loop looked.
// The run finished: it is kept, and a resume does not run it again.
TEST(SweepRuns, ARunThatFinishedBeforeTheSignalIsKept) {
  TempDir t;
  auto plan = PlanOf(t, 3);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string dir = t.Sub("sweep");
  std::string signal;
  std::vector<size_t> ran;
  SweepRuns sweep(
      *plan, dir,
      [&](const SweepRunTarget& target) {
        ran.push_back(target.index);
        WriteResult(target.dir, RunStatus::kOk);
        if (target.index == 1) signal = "SIGINT";  // after its result
        return 0;
      },
      [&] { return signal; });
  sweep.RunAll();
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(sweep.interrupted(), "SIGINT");
  EXPECT_EQ(sweep.failed(), 0);
  const std::string run1 = dir + "/" + plan->runs[1].name;
  EXPECT_TRUE(FinishedOk(run1));
  EXPECT_FALSE(fs::exists(run1 + "/result.interrupted.json"));
  signal.clear();
  SweepRuns resumed(*plan, dir, FinishEach(&ran), [&] { return signal; });
  resumed.RunAll();
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(resumed.done_before(), 2);
}

}  // namespace
}  // namespace ckpt
