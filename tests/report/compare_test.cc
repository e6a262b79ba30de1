#include "report/compare.h"

#include <gtest/gtest.h>

#include "report/collate.h"

namespace ckpt {
namespace {

// A run of point `point` whose timed save rounds ran at `rates` MiB/s
// (1 GiB each), plus an untimed staging round that must not count.
LoadedRun FakeRun(const std::string& point, std::vector<double> rates) {
  LoadedRun r;
  r.point_name = point;
  r.values = {{"K", point}};
  r.has_result = true;
  r.status = "ok";
  RoundResult staged;
  staged.phase = Phase::kSave;
  staged.staged = true;
  staged.seconds = 99.0;
  staged.throughput_mib_s = 1.0;
  r.result.rounds.push_back(staged);
  for (double rate : rates) {
    RoundResult round;
    round.phase = Phase::kSave;
    round.seconds = 1024.0 / rate;
    round.bytes = uint64_t{1} << 30;
    round.throughput_mib_s = rate;
    r.result.rounds.push_back(round);
  }
  return r;
}

SweepData Sweep(std::vector<LoadedRun> runs) {
  SweepData d;
  d.is_sweep = true;
  d.param_names = {"K"};
  d.runs = std::move(runs);
  return d;
}

TEST(Compare, FlagsOnlyChangesLargerThanTheRunToRunSpread) {
  SweepData a = Sweep({FakeRun("K=1", {100, 110}), FakeRun("K=2", {100, 120}),
                       FakeRun("K=3", {100}), FakeRun("K=4", {50, 50})});
  SweepData b = Sweep({FakeRun("K=1", {200, 210}), FakeRun("K=2", {105, 115}),
                       FakeRun("K=3", {300}), FakeRun("K=5", {1, 1})});
  Comparison c = ComparePoints(a, b);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0].point, "K=1");
  // Each side's rate is 2 GiB over the two rounds' summed time: for rounds
  // of equal bytes, the harmonic mean of their rates, not the mean.
  const double a1 = 2048 / (1024 / 100.0 + 1024 / 110.0);  // 104.762
  const double b1 = 2048 / (1024 / 200.0 + 1024 / 210.0);  // 204.878
  EXPECT_NEAR(c.rows[0].a_total_mib_s, 104.762, 1e-3);
  EXPECT_NEAR(c.rows[0].a_total_mib_s, a1, 1e-9);
  EXPECT_NEAR(c.rows[0].b_total_mib_s, b1, 1e-9);
  EXPECT_NEAR(c.rows[0].change_percent, 100.0 * (b1 - a1) / a1, 1e-9);
  EXPECT_DOUBLE_EQ(c.rows[0].spread_mib_s, 10);
  EXPECT_EQ(c.rows[0].verdict, "changed");
  EXPECT_EQ(c.rows[1].verdict, "within spread");  // 110 vs 110, range 20
  EXPECT_EQ(c.rows[2].verdict, "too few rounds");
  EXPECT_EQ(c.only_a, std::vector<std::string>{"K=4"});
  EXPECT_EQ(c.only_b, std::vector<std::string>{"K=5"});
  std::string table = CompareTable(c, "A", "B");
  EXPECT_NE(table.find("* changed"), std::string::npos) << table;
  EXPECT_NE(table.find("only in A: K=4"), std::string::npos);
}

TEST(Collate, PointsPoolTheirRepeatsAndCsvQuotes) {
  SweepData d = Sweep({FakeRun("K=1", {100, 110}), FakeRun("K=1", {130, 140})});
  d.runs[0].values = {{"K", "a,b"}};
  auto points = ByPoint(d);
  ASSERT_EQ(points.size(), 1u);
  Spread s = points[0].save.mib_s();
  EXPECT_EQ(s.count, 4);  // the staging rounds left out
  EXPECT_DOUBLE_EQ(s.mean, 120);
  EXPECT_DOUBLE_EQ(s.min, 100);
  EXPECT_DOUBLE_EQ(s.max, 140);
  EXPECT_EQ(points[0].save.run_mean_mib_s, (std::vector<double>{105, 135}));
  // Each repeat's rate and the point's: bytes over summed time.
  ASSERT_EQ(points[0].save.run_mib_s.size(), 2u);
  EXPECT_NEAR(points[0].save.run_mib_s[0], 2 / (1 / 100.0 + 1 / 110.0), 1e-9);
  EXPECT_NEAR(points[0].save.run_mib_s[1], 2 / (1 / 130.0 + 1 / 140.0), 1e-9);
  EXPECT_NEAR(points[0].save.total_mib_s(),
              4 / (1 / 100.0 + 1 / 110.0 + 1 / 130.0 + 1 / 140.0), 1e-9);
  EXPECT_EQ(points[0].save.bytes, uint64_t{4} << 30);
  std::string csv = ResultsCsv(d);
  EXPECT_NE(csv.find(",\"a,b\",ok,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",errors,save_total_mib_s,load_total_mib_s\n"),
            std::string::npos)
      << csv;
}

}  // namespace
}  // namespace ckpt
