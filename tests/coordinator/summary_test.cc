// The terminal summary and the per-phase statistics it prints.
#include "coordinator/summary.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "coordinator/dataset/dataset_results.h"
#include "coordinator/results.h"
#include "coordinator/workload_registry.h"

namespace ckpt {
namespace {

RoundResult Round(Phase phase, int index, double seconds, double mib_s) {
  RoundResult r;
  r.phase = phase;
  r.index = index;
  r.step = 1;
  r.seconds = seconds;
  r.throughput_mib_s = mib_s;
  r.bytes = 1 << 20;
  return r;
}

RunResult TwoSavesOneLoad() {
  RunResult r;
  r.status = RunStatus::kOk;
  r.model = "transformer";
  r.world_size = 2;
  r.thread_count = 1;
  r.num_nodes = 1;
  RoundResult staged = Round(Phase::kSave, 0, 9, 1);
  staged.staged = true;  // untimed: never in the statistics
  r.rounds.push_back(staged);
  r.rounds.push_back(Round(Phase::kSave, 1, 1.0, 100));
  r.rounds.push_back(Round(Phase::kSave, 2, 3.0, 300));
  RoundResult load = Round(Phase::kLoad, 1, 2.0, 50);
  load.verified = true;
  load.cache.method = "fadvise";
  r.rounds.push_back(load);
  return r;
}

TEST(Summary, PhaseStatisticsLeaveOutStagedAndFailedRounds) {
  RunResult r = TwoSavesOneLoad();
  RoundResult failed = Round(Phase::kSave, 3, 100, 1);
  failed.status = RunStatus::kFailed;
  r.rounds.push_back(failed);
  PhaseSummary save = r.Summarize(Phase::kSave);
  EXPECT_EQ(save.count, 2);
  EXPECT_DOUBLE_EQ(save.seconds.mean, 2.0);
  EXPECT_DOUBLE_EQ(save.seconds.min, 1.0);
  EXPECT_DOUBLE_EQ(save.seconds.max, 3.0);
  EXPECT_DOUBLE_EQ(save.mib_s.mean, 200.0);
  EXPECT_EQ(r.Summarize(Phase::kLoad).count, 1);
}

// Rounds that differ: the phase's rate is all bytes over all time, worked
// out by hand: 1000 MiB in 1 s and 1000 MiB in 9 s are 2000 MiB in 10 s,
// 200 MiB/s; the mean of the two rounds' rates (1000 and 111.1) would say
// 555.6.
TEST(Summary, ThePhaseRateIsTotalBytesOverTotalTimeNotAMeanOfRates) {
  RunResult r;
  r.status = RunStatus::kOk;
  r.model = "transformer";
  r.world_size = 1;
  r.thread_count = 1;
  r.num_nodes = 1;
  RoundResult fast = Round(Phase::kSave, 1, 1.0, 1000);
  fast.bytes = 1000ull << 20;
  RoundResult slow = Round(Phase::kSave, 2, 9.0, 1000.0 / 9);
  slow.bytes = 1000ull << 20;
  r.rounds = {fast, slow};
  PhaseSummary save = r.Summarize(Phase::kSave);
  EXPECT_EQ(save.bytes, 2000ull << 20);
  EXPECT_DOUBLE_EQ(save.total_seconds, 10.0);
  EXPECT_DOUBLE_EQ(save.total_mib_s, 200.0);
  EXPECT_NEAR(save.mib_s.mean, 555.6, 0.1);  // kept as a distribution
  EXPECT_NEAR(save.mib_s.min, 111.1, 0.1);
  const std::string s = SummaryTable(r);
  EXPECT_NE(s.find("save     2      5.000"), std::string::npos) << s;
  EXPECT_NE(s.find("       200.0"), std::string::npos) << s;
  EXPECT_NE(s.find("111.1..1000.0"), std::string::npos) << s;
  EXPECT_EQ(s.find("555.6"), std::string::npos) << s;
}

TEST(Summary, TheTableNamesEachRoundsStatusAndTheRunsNotesAndErrors) {
  RunResult r = TwoSavesOneLoad();
  r.notes.push_back("staged step-1");
  r.leftovers.push_back("s3://b/p/checkpoints/step-4 (AccessDenied)");
  r.errors.push_back("load round 2: node 0 (h): checksum mismatch");
  const std::string s = SummaryTable(r);
  EXPECT_NE(s.find("ckptbench ok: transformer"), std::string::npos) << s;
  EXPECT_NE(s.find("stage"), std::string::npos) << s;
  EXPECT_NE(s.find("fadvise          verified\n"), std::string::npos) << s;
  EXPECT_NE(s.find("save     2      2.000"), std::string::npos) << s;
  EXPECT_NE(s.find("load     1      2.000"), std::string::npos) << s;
  EXPECT_NE(s.find("note: staged step-1\n"), std::string::npos) << s;
  EXPECT_NE(s.find("left behind: s3://b/p/checkpoints/step-4 (AccessDenied)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("error: load round 2: node 0 (h): checksum mismatch"),
            std::string::npos)
      << s;
  // Single node: no per-node spread section.
  EXPECT_EQ(s.find("start spread"), std::string::npos) << s;
}

// A load that was not fully checked never says "verified"; flagged rounds
// are counted next to the statistics they are part of.
TEST(Summary, FlagsShowOnTheRoundAndAreCountedUnderThePhase) {
  RunResult r = TwoSavesOneLoad();
  r.rounds.back().verified = false;
  r.rounds.back().flags = {RoundFlag::kPageCacheResident,
                           RoundFlag::kUnverified};
  RoundResult second = Round(Phase::kLoad, 2, 2.0, 50);
  second.verified = true;
  second.flags = {RoundFlag::kPageCacheResident};
  r.rounds.push_back(second);
  const std::string s = SummaryTable(r);
  EXPECT_NE(s.find("ok [page_cache_resident,unverified]\n"), std::string::npos)
      << s;
  EXPECT_NE(s.find("verified [page_cache_resident]\n"), std::string::npos) << s;
  EXPECT_NE(s.find("2 of 2 rounds flagged page_cache_resident"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("1 of 2 rounds flagged unverified"), std::string::npos) << s;
}

TEST(Summary, MultinodeRunsShowSpreadStragglersAndClocks) {
  RunResult r = TwoSavesOneLoad();
  r.num_nodes = 2;
  r.rounds[1].start_spread_seconds = 0.0042;
  r.rounds[1].stragglers.push_back({1, "vm-b", 1.5, 1.25, "", {}});
  r.clocks.push_back({1, "vm-b", 0.75, 0.2});
  const std::string s = SummaryTable(r);
  EXPECT_NE(s.find("spread   4.200 ms   node 1 (vm-b) 1.500 s 1.25x"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("node 1 +0.750 ms (rtt 0.200 ms)"), std::string::npos) << s;
}

// Checkpoints during an epoch: each save's window against the rest of the
// epoch, a dip said as "below" and a window faster than the rest (an
// async save overlapping the epoch's slow start) as "above", never a
// negative "below".
TEST(Summary, EpochSavesSayWhetherTheWindowWasBelowOrAboveTheRest) {
  RunResult r;
  r.status = RunStatus::kOk;
  r.world_size = 2;
  r.num_nodes = 1;
  RoundResult round = Round(Phase::kLoad, 1, 10, 5);
  EpochResult& epoch = NewEpoch(&round);
  epoch.rest_samples_per_second = 500;
  EpochResult::Save slower, faster;
  slower.index = 1;
  slower.step = 1;
  slower.window_samples_per_second = 250;
  faster.index = 2;
  faster.step = 2;
  faster.window_samples_per_second = 800;
  epoch.saves = {slower, faster};
  r.rounds.push_back(round);
  const std::string table = SummaryTable(r);
  EXPECT_NE(table.find("250 samples/s in it (50% below the rest)"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("800 samples/s in it (60% above the rest)"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("-60%"), std::string::npos) << table;
}

// A workload's parts come from the registry: one a test registers adds its
// own table beside the built-in ones', and a run of a workload the
// registry does not know still shows its rounds, saying what is missing.
TEST(Summary, AWorkloadsPartsComeFromTheRegistry) {
  const RunResult r = TwoSavesOneLoad();
  WorkloadSummary counting;
  counting.tables = [](const RunResult& run, std::string* out) {
    *out += "counting: " + std::to_string(run.rounds.size()) + " rounds\n";
  };
  auto registry = WorkloadRegistry::BuiltIn().With(
      {"counting", [] { return std::unique_ptr<RunWorkload>(); }, counting});
  ASSERT_TRUE(registry.ok()) << registry.status();
  const std::string table = SummaryTable(r, *registry);
  EXPECT_NE(table.find("counting: 4 rounds\n"), std::string::npos) << table;
  // The built-in parts are all still there, in their places.
  const std::string plain = SummaryTable(r);
  std::string without = table;
  without.erase(without.find("counting: 4 rounds\n"),
                std::string("counting: 4 rounds\n").size());
  EXPECT_EQ(without, plain);

  const std::string unknown = SummaryTable(r, WorkloadRegistry());
  EXPECT_NE(unknown.find("ckptbench ok: checkpoint on 1 node(s)\n"),
            std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("save   1"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("note: this build has no summary of workload "
                         "'checkpoint' beyond its rounds\n"),
            std::string::npos)
      << unknown;
  EXPECT_EQ(unknown.find("phase    n"), std::string::npos) << unknown;
}

// A dataload sweep's table of points is dataload's summary part: each
// point's cold epochs, averaged over its repeats, its name escaped; none
// without an epoch.
TEST(Summary, ASweepsDataLoaderTableIsDataloadsPart) {
  auto cold = [](double rate, double util) {
    RunResult r;
    r.workload = "dataload";
    RoundResult round;
    round.index = 1;
    EpochResult& epoch = NewEpoch(&round);
    epoch.samples_per_second = rate;
    epoch.utilization = util;
    epoch.compute_seconds = 1;
    r.rounds.push_back(round);
    return r;
  };
  const RunResult a = cold(100, 0.5), b = cold(300, 0.7), none;
  ReportInput input;
  input.is_sweep = true;
  input.runs = {{"run-000", &a, "w=\x1b[2J", {}},
                {"run-001", &b, "w=\x1b[2J", {}},
                {"run-002", &none, "w=4", {}}};
  std::string table;
  WorkloadRegistry::BuiltIn().ForEachSummary([&](const WorkloadSummary& s) {
    if (s.sweep_table) table += s.sweep_table(input);
  });
  EXPECT_NE(table.find("point (data loader)"), std::string::npos) << table;
  const size_t row = table.find("w=\\x1B[2J");
  ASSERT_NE(row, std::string::npos) << table;
  EXPECT_EQ(table.find('\x1b'), std::string::npos) << "escaped";
  const std::string line = table.substr(row, table.find('\n', row) - row);
  EXPECT_NE(line.find("      2          200     60.0"), std::string::npos)
      << line;
  EXPECT_EQ(table.find("w=4"), std::string::npos) << table;
  input.runs.resize(1);
  input.runs[0].result = &none;
  table.clear();
  WorkloadRegistry::BuiltIn().ForEachSummary([&](const WorkloadSummary& s) {
    if (s.sweep_table) table += s.sweep_table(input);
  });
  EXPECT_EQ(table, "");
}

}  // namespace
}  // namespace ckpt
