#include "coordinator/checkpoint/goodput.h"

#include <gtest/gtest.h>

#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/results.h"

namespace ckpt {
namespace {

// Worked by hand: delta = 60 s, M = 24 h = 86,400 s, R = 120 s.
//   Young: sqrt(2 * 60 * 86400) = sqrt(10,368,000) = 3219.938 s
//          (3220^2 = 10,368,400; 3220 - 400 / 6440 = 3219.938)
//   Daly:  3219.938 - 60 = 3159.938 s
//   waste(3600) = 60/3600 + (1800 + 120)/86400 = 0.016667 + 0.022222
//               = 0.038889 -> goodput 0.961111
//   The model's minimum is Young's interval (d/dtau of delta/tau +
//   tau/(2M) is 0 at sqrt(2 delta M)):
//   waste(3219.938) = 0.0186339 + (1609.969 + 120)/86400
//                   = 0.0186339 + 0.0200228 = 0.0386567 -> 0.9613433
//   waste(3159.938) = 0.0189877 + (1579.969 + 120)/86400
//                   = 0.0189877 + 0.0196756 = 0.0386633: a little more
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
  EXPECT_NEAR(g.at_optimum.interval_seconds, 3219.938, 1e-3);
  EXPECT_NEAR(g.at_optimum.waste, 0.0386567, 1e-6);
  EXPECT_NEAR(g.at_optimum.goodput, 0.9613433, 1e-6);
  EXPECT_NEAR(g.at_daly.waste, 0.0386633, 1e-6);
  EXPECT_EQ(g.at_optimum.cost_seconds, 60);  // synchronous: constant
  // The optimum is the curve's best point, at its middle.
  ASSERT_EQ(g.curve.size(), 25u);
  EXPECT_NEAR(g.curve[12].interval_seconds, 3219.938, 1e-3);
  EXPECT_NEAR(g.curve.front().interval_seconds, 3219.938 / 8, 1e-3);
  EXPECT_NEAR(g.curve.back().interval_seconds, 3219.938 * 8, 1e-2);
  for (const auto& p : g.curve) {
    EXPECT_GE(p.waste, g.at_optimum.waste - 1e-12) << p.interval_seconds;
  }
}

// An async save costs its blocking time plus slowdown (d), and at intervals
// shorter than its persist time P also the wait: delta(tau) = d + max(0,
// P - tau). Worked by hand, R = 0:
//   d = 1, P = 100, M = 10,000: from P on the least waste is at
//   sqrt(2 * 1 * 10000) = 141.42 (>= P): 1/141.42 + 70.71/10000 = 0.0141421;
//   below P it is clipped to P: (1 + 0)/100 + 50/10000 = 0.015. Optimum
//   141.42. At tau = 50 the save waits 50 s: (1 + 50)/50 + 25/10000 =
//   1.0225 of the time lost, goodput 0.
//   d = 0.1, P = 30, M = 1000: Young(d) = sqrt(200) = 14.14 < P and
//   Young(d + P) = sqrt(60,200) = 245.4 > P: the optimum is P itself,
//   0.1/30 + 15/1000 = 0.0183333.
TEST(Goodput, AnAsyncSavesWaitForPersistenceCountsBelowItsPersistTime) {
  GoodputInputs in;
  in.delta_seconds = 1;
  in.persist_seconds = 100;
  in.mttf_seconds = 10000;
  in.interval_seconds = 50;
  GoodputResult g = ComputeGoodput(in);
  EXPECT_NEAR(g.at_optimum.interval_seconds, 141.421, 1e-3);
  EXPECT_NEAR(g.at_optimum.waste, 0.0141421, 1e-6);
  EXPECT_EQ(g.at_optimum.cost_seconds, 1);
  EXPECT_EQ(g.at_interval.cost_seconds, 51);
  EXPECT_NEAR(g.at_interval.waste, 1.0225, 1e-9);
  EXPECT_EQ(g.at_interval.goodput, 0);
  EXPECT_NEAR(PointAt(in, 100).waste, 0.015, 1e-12);
  GoodputInputs at_p;
  at_p.delta_seconds = 0.1;
  at_p.persist_seconds = 30;
  at_p.mttf_seconds = 1000;
  EXPECT_NEAR(OptimalInterval(at_p), 30, 1e-9);
  EXPECT_NEAR(ComputeGoodput(at_p).at_optimum.waste, 0.0183333, 1e-6);
}

TEST(Goodput, CostAtLeastTwiceTheMttfAndFreeSavesAreEdgeCases) {
  // Daly: tau* = M when delta >= 2M. delta 10, M 4: waste(4) = 10/4 +
  // (2 + 0)/4 = 3, so nothing is left: goodput 0, not -2.
  EXPECT_EQ(DalyInterval(10, 4), 4);
  GoodputInputs in;
  in.delta_seconds = 10;
  in.mttf_seconds = 4;
  EXPECT_NEAR(ComputeGoodput(in).at_daly.waste, 3, 1e-12);
  EXPECT_EQ(ComputeGoodput(in).at_daly.goodput, 0);
  EXPECT_EQ(WasteFraction(1, 0, 0, 100), 1);  // no interval: all lost
  // Saves that cost nothing: checkpoint continuously; only R is lost per
  // failure (R = 5, M = 100: 5%).
  GoodputInputs free_saves;
  free_saves.restart_seconds = 5;
  free_saves.mttf_seconds = 100;
  GoodputResult g = ComputeGoodput(free_saves);
  EXPECT_EQ(g.at_optimum.interval_seconds, 0);
  EXPECT_NEAR(g.at_optimum.waste, 0.05, 1e-12);
  EXPECT_TRUE(g.curve.empty());
}

TEST(Goodput, RunResultTakesTheMedianSaveCostAndLoadTimeAndSaysWhich) {
  RunResult r;
  EXPECT_FALSE(GoodputOf(r).has_value());  // no MTTF
  SetGoodputAt(&r, 86400, 3600);
  EXPECT_FALSE(GoodputOf(r).has_value());  // no save
  auto round = [](Phase phase, double seconds, double cost) {
    RoundResult x;
    x.phase = phase;
    x.seconds = seconds;
    x.staging.checkpoint_cost_seconds = cost;
    return x;
  };
  r.rounds.push_back(round(Phase::kSave, 70, 70));
  r.rounds.push_back(round(Phase::kSave, 50, 50));
  r.rounds.push_back(round(Phase::kSave, 60, 60));
  RoundResult failed = round(Phase::kSave, 1, 1);
  failed.status = RunStatus::kFailed;  // left out
  r.rounds.push_back(failed);
  RoundResult staged = round(Phase::kSave, 1, 1);
  staged.staged = true;  // untimed: left out
  r.rounds.push_back(staged);
  r.rounds.push_back(round(Phase::kLoad, 100, 0));
  r.rounds.push_back(round(Phase::kLoad, 140, 0));
  auto g = GoodputOf(r);
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
