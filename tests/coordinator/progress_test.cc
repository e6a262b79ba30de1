#include "coordinator/progress.h"

#include <gtest/gtest.h>

namespace ckpt {
namespace {

TEST(Progress, LineShowsPhaseBytesRateEtaAndNodesWithTheSweepContext) {
  ProgressPrinter p(/*interval_seconds=*/60, /*terminal=*/false);
  p.SetContext("[run 3/8 NUM_LAYERS=2]");
  p.BeginRound("load 2", 4ull << 20, 2);
  PhaseProgress update;
  update.ranks.push_back({0, 1 << 20, 0});
  p.Update(0, update);
  update.ranks[0].bytes_done = 2 << 20;  // a later report replaces, never adds
  p.Update(0, update);
  p.NodeDone(0);
  std::string line = p.Line();
  EXPECT_EQ(line.rfind("[run 3/8 NUM_LAYERS=2] load 2  2.00 MiB / 4.00 MiB  "
                       " 50.0%",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("MiB/s  ETA "), std::string::npos) << line;
  EXPECT_NE(line.find("nodes done 1/2"), std::string::npos) << line;
  p.EndRound();
}

}  // namespace
}  // namespace ckpt
