#include "coordinator/goodput.h"

#include <gtest/gtest.h>

#include "coordinator/results.h"

namespace ckpt {
namespace {

// Worked by hand: delta = 60 s, M = 24 h = 86,400 s, R = 120 s.
//   Young: sqrt(2 * 60 * 86400) = sqrt(10,368,000) = 3219.938 s
//          (3220^2 = 10,368,400; 3220 - 400 / 6440 = 3219.938)
//   Daly:  3219.938 - 60 = 3159.938 s
//   waste(3600) = 60/3600 + (1800 + 120)/86400 = 0.016667 + 0.022222
//               = 0.038889 -> goodput 0.961111
//   waste(3159.938) = 0.0189877 + (1579.969 + 120)/86400
//                   = 0.0189877 + 0.0196756 = 0.0386633 -> 0.9613367
TEST(Goodput, YoungDalyAndWasteMatchHandWorkedValues) {
  GoodputInputs in;
  in.delta_seconds = 60;
  in.mttf_seconds = 86400;
  in.restart_seconds = 120;
  in.interval_seconds = 3600;
  GoodputResult g = ComputeGoodput(in);
  EXPECT_NEAR(g.young_seconds, 3219.938, 1e-3);
  EXPECT_NEAR(g.daly_seconds, 3159.938, 1e-3);
  EXPECT_NEAR(g.at_interval.waste, 0.038889, 1e-6);
  EXPECT_NEAR(g.at_interval.goodput, 0.961111, 1e-6);
  EXPECT_NEAR(g.at_optimum.waste, 0.0386633, 1e-6);
  EXPECT_NEAR(g.at_optimum.goodput, 0.9613367, 1e-6);
  // The optimum is the curve's best point: no sampled interval beats it.
  ASSERT_EQ(g.curve.size(), 25u);
  EXPECT_NEAR(g.curve.front().interval_seconds, g.daly_seconds / 8, 1e-6);
  EXPECT_NEAR(g.curve.back().interval_seconds, g.daly_seconds * 8, 1e-3);
  for (const auto& p : g.curve) {
    EXPECT_LE(p.goodput, g.at_optimum.goodput + 1e-4) << p.interval_seconds;
  }
}

TEST(Goodput, CostAtLeastTwiceTheMttfTakesTheMttfAndClampsAtZero) {
  // Daly: tau* = M when delta >= 2M. delta 10, M 4: waste(4) = 10/4 +
  // (2 + 0)/4 = 3, so nothing is left: goodput 0, not -2.
  EXPECT_EQ(DalyInterval(10, 4), 4);
  GoodputInputs in;
  in.delta_seconds = 10;
  in.mttf_seconds = 4;
  GoodputResult g = ComputeGoodput(in);
  EXPECT_NEAR(g.at_optimum.waste, 3, 1e-12);
  EXPECT_EQ(g.at_optimum.goodput, 0);
  EXPECT_EQ(WasteFraction(1, 0, 0, 100), 1);  // no interval: all lost
}

TEST(Goodput, RunResultTakesTheMedianSaveCostAndLoadTimeAndSaysWhich) {
  RunResult r;
  EXPECT_FALSE(r.Goodput().has_value());  // no MTTF
  r.mttf_seconds = 86400;
  r.interval_seconds = 3600;
  EXPECT_FALSE(r.Goodput().has_value());  // no save
  auto round = [](const char* phase, double seconds, double cost) {
    RoundResult x;
    x.phase = phase;
    x.seconds = seconds;
    x.staging.checkpoint_cost_seconds = cost;
    return x;
  };
  r.rounds.push_back(round("save", 70, 70));
  r.rounds.push_back(round("save", 50, 50));
  r.rounds.push_back(round("save", 60, 60));
  RoundResult failed = round("save", 1, 1);
  failed.status = "failed";  // left out
  r.rounds.push_back(failed);
  RoundResult staged = round("save", 1, 1);
  staged.staged = true;  // untimed: left out
  r.rounds.push_back(staged);
  r.rounds.push_back(round("load", 100, 0));
  r.rounds.push_back(round("load", 140, 0));
  auto g = r.Goodput();
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->in.delta_seconds, 60);     // median of 50, 60, 70
  EXPECT_EQ(g->in.restart_seconds, 120);  // median of 100 and 140
  EXPECT_NEAR(g->at_interval.goodput, 0.961111, 1e-6);
  EXPECT_NE(g->delta_source.find("3 synchronous save"), std::string::npos)
      << g->delta_source;
  EXPECT_NE(g->restart_source.find("2 load"), std::string::npos);
}

}  // namespace
}  // namespace ckpt
