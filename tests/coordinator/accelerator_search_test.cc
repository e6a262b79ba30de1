// How many accelerators a storage feeds (dataload.find_accelerators): the
// search's order and verdicts on made-up trials, and a whole search on
// memory storage paced to a known rate, where the answer is worked out by
// hand.
#include "coordinator/dataset/accelerator_search.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_options.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/summary.h"
#include "tests/testing/inprocess_run.h"
#include "tests/testing/timing.h"

namespace ckpt {
namespace {

RoundResult Epoch(double utilization, bool client_bound = false) {
  RoundResult r;
  NewEpoch(&r).utilization = utilization;
  if (client_bound) r.client_bound = "its CPUs were busy";
  return r;
}

// Feeds the trials the `held` rule gives until the search stops; the
// counts it tried, in order.
std::vector<int> Search(AcceleratorSearchResult* s,
                        const std::function<bool(int)>& held,
                        const std::function<bool(int)>& client = nullptr) {
  std::vector<int> tried;
  for (int n = NextRanksPerNode(*s); n > 0; n = NextRanksPerNode(*s)) {
    tried.push_back(n);
    AddTrial(Epoch(held(n) ? 0.95 : 0.5, client && client(n)), n, 0, s);
    if (tried.size() > 40) break;
  }
  ConcludeSearch(s);
  return tried;
}

TEST(AcceleratorSearch, DoublesThenHalvesTheGapAndSaysWhatEndedIt) {
  AcceleratorSearchResult s;
  s.max_per_node = 64;
  s.nodes = 2;
  EXPECT_EQ(Search(&s, [](int n) { return n <= 5; }),
            (std::vector<int>{1, 2, 4, 8, 6, 5}));
  EXPECT_EQ(s.largest_per_node, 5);
  EXPECT_EQ(s.largest_accelerators, 10);
  EXPECT_EQ(s.ended_by, SearchEnd::kStorage);

  AcceleratorSearchResult limit;
  limit.max_per_node = 5;
  EXPECT_EQ(Search(&limit, [](int) { return true; }),
            (std::vector<int>{1, 2, 4, 5}));
  EXPECT_EQ(limit.largest_per_node, 5);
  EXPECT_EQ(limit.ended_by, SearchEnd::kLimit);

  AcceleratorSearchResult none;
  none.max_per_node = 8;
  EXPECT_EQ(Search(&none, [](int) { return false; }), std::vector<int>{1});
  EXPECT_EQ(none.largest_accelerators, 0);
  EXPECT_EQ(none.ended_by, SearchEnd::kStorage);

  // The count that fell was client-bound: the client's verdict, not the
  // storage's.
  AcceleratorSearchResult client;
  client.max_per_node = 16;
  Search(
      &client, [](int n) { return n < 4; }, [](int n) { return n >= 4; });
  EXPECT_EQ(client.largest_per_node, 3);
  EXPECT_EQ(client.ended_by, SearchEnd::kClient);
}

// Memory storage paced to R = 22 MiB/s for every reader; samples of
// S = 32 KiB in batches of B = 4; an accelerator computes c = 20 ms a
// batch, so each asks for B x S / c = 6.4 MiB/s. Three ask 19.2 MiB/s,
// under R: they stay busy but for the first batch's wait (about 0.95).
// Four ask 25.6 MiB/s: the epoch's 15 MiB take at least 15 / 22 = 0.68 s
// while each accelerator computes 30 x 20 ms = 0.6 s, so utilization is at
// most 0.88, under 90%. The search tries 1, 2, 4 (falls), then 3: the
// answer is 3.
TEST(AcceleratorSearch, OnStoragePacedToAKnownRateItStopsAtTheCountByHand) {
  auto memory = std::make_shared<MemoryStore>();
  Config c;
  DatasetOf(c).path = "mem://bucket/ds";
  DatasetOf(c).format = DatasetFormat::kFiles;
  DatasetOf(c).samples = 480;
  DatasetOf(c).sample_bytes = 32 * 1024;
  DatasetOf(c).sample_spread = 0;
  DatasetOf(c).write_threads = 2;
  c.io.block_size = 64 * 1024;
  {
    Config gen = c;
    gen.run.workload = kDatagenWorkload;
    InProcessRun h(memory, gen, 1);
    ASSERT_TRUE(h.Run().ok());
  }
  memory->SetRate(22.0 * 1024 * 1024);
  c.run.workload = kDataloadWorkload;
  c.run.progress_interval = 10;
  DataloadOf(c).batch_size = 4;
  DataloadOf(c).num_workers = 2;
  DataloadOf(c).compute_time = 0.020;
  DataloadOf(c).find_accelerators = 8;
  InProcessRun h(memory, c, 1);
  absl::Status s = h.Run();
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_NE(AcceleratorSearchOf(h.result), nullptr);
  const AcceleratorSearchResult& a = *AcceleratorSearchOf(h.result);
  // Which counts the search tries follows from the utilization it
  // measures: a rate.
  if (!kRatesHold) GTEST_SKIP() << kRatesSkipped;
  std::vector<int> tried;
  for (const auto& t : a.trials) tried.push_back(t.ranks_per_node);
  EXPECT_EQ(tried, (std::vector<int>{1, 2, 4, 3}));
  EXPECT_EQ(a.largest_accelerators, 3);
  EXPECT_EQ(a.ended_by, SearchEnd::kStorage);
  ASSERT_EQ(a.trials.size(), 4u);
  EXPECT_LE(a.trials[2].utilization, 0.885);  // four: the storage's bound
  EXPECT_GE(a.trials[3].utilization, 0.9);
  EXPECT_EQ(a.trials[3].batches_per_rank, 40u);
  // Each trial is a cold epoch of its own, with the world it had.
  ASSERT_EQ(h.result.rounds.size(), 4u);
  EXPECT_EQ(EpochOf(h.result.rounds[2])->ranks.size(), 4u);
  EXPECT_TRUE(EpochOf(h.result.rounds[3])->each_sample_once);
  const std::string table = SummaryTable(h.result);
  EXPECT_TRUE(absl::StrContains(
      table, "largest kept at >= 90% utilization: 3 accelerator(s)"))
      << table;
}

}  // namespace
}  // namespace ckpt
