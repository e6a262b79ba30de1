// The node's side of the round protocol with a workload of the test's
// own: what each workload is given back, and when.
#include "node/round/workload_phase.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <string>

#include "common/clock.h"
#include "node/round/phase_start.h"

namespace ckpt {
namespace {

// Counts, per round, the calls the protocol makes.
struct Calls {
  std::map<uint64_t, int> ran, given_back;
};

class RecordingWorkload : public NodeWorkload {
 public:
  explicit RecordingWorkload(Calls* calls) : calls_(calls) {}
  absl::StatusOr<PrepareOutcome> Prepare(PhaseJob job, StorageSet&,
                                         const std::atomic<bool>&) override {
    round_ = job.round_id;
    return PrepareOutcome{};
  }
  PhaseOutcome Run(const NodePhaseContext&) override {
    ++calls_->ran[round_];
    PhaseOutcome out;
    out.workload_report = "ran";
    return out;
  }
  std::vector<RankProgress> Progress() const override { return {}; }
  void GiveBack() override { ++calls_->given_back[round_]; }

 private:
  Calls* calls_;
  uint64_t round_ = 0;
};

TEST(WorkloadPhases, EachRoundGivesBackOnceWhetherItRanOrNot) {
  Calls calls;
  StorageSet storage;
  WorkloadPhases phases(
      {{"rec", [&] { return std::make_unique<RecordingWorkload>(&calls); }}});
  auto job = [](uint64_t round) {
    PhaseJob j;
    j.run_id = "run-1";
    j.round_id = round;
    j.workload = "rec";
    return j;
  };
  auto start = [](uint64_t round) {
    return PhaseStart{"run-1", round, 0, 1.0};
  };
  // Round 1 is prepared, never started: the next prepare gives it back.
  ASSERT_TRUE(phases.Prepare(job(1), storage).ok());
  ASSERT_TRUE(phases.Prepare(job(2), storage).ok());
  EXPECT_EQ(calls.given_back[1], 1);
  EXPECT_EQ(calls.ran[1], 0);
  // Round 2 runs; its report is sent, then AfterReport gives it back.
  PhaseOutcome out = phases.Run(start(2), nullptr, nullptr);
  EXPECT_EQ(out.workload_report, "ran");
  EXPECT_EQ(out.round_id, 2u);
  EXPECT_EQ(calls.given_back[2], 0);
  phases.AfterReport();
  EXPECT_EQ(calls.given_back[2], 1);
  phases.AfterReport();  // nothing left
  EXPECT_EQ(calls.given_back[2], 1);
  // A retried start answers with the first outcome, running nothing.
  EXPECT_EQ(phases.Run(start(2), nullptr, nullptr).workload_report, "ran");
  EXPECT_EQ(calls.ran[2], 1);
  // Round 3 runs, and round 4 is prepared before any AfterReport: round 3
  // is given back then, not lost.
  ASSERT_TRUE(phases.Prepare(job(3), storage).ok());
  phases.Run(start(3), nullptr, nullptr);
  ASSERT_TRUE(phases.Prepare(job(4), storage).ok());
  EXPECT_EQ(calls.given_back[3], 1);
  // A name this node does not run is refused, naming what it runs.
  PhaseJob other = job(5);
  other.workload = "unknown";
  auto refused = phases.Prepare(other, storage);
  EXPECT_EQ(refused.status().message(),
            "workload 'unknown' is not one this node runs (it runs: rec)");
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// The start instant comes from the coordinator: one long past, or at
// int64's lower end, starts at once (its lateness is the lag), with no
// overflow (UBSan in CI's ASan build would fail the test).
TEST(SleepUntilStart, AnInstantLongPastOrAtInt64sEndStartsAtOnce) {
  for (int64_t at : {std::numeric_limits<int64_t>::min(), int64_t{0},
                     NowUnixNs() - 1'000'000'000}) {
    const auto t0 = std::chrono::steady_clock::now();
    const double lag = SleepUntilStart(at);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1))
        << at;
    EXPECT_GE(lag, 0.0) << at;
  }
}

}  // namespace
}  // namespace ckpt
