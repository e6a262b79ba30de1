// DataloadRound::CheckReport on a node's first batch in parts: a report
// whose first batch is not durations adding up to its time, from a worker
// of its rank that made those requests, is refused, naming the rank, and
// never reaches result.json. (tests/fuzz/dataload_report_fuzz.cc checks
// that whatever passes adds up.)
#include <gtest/gtest.h>

#include <functional>

#include "absl/strings/match.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_manifest.h"
#include "common/dataset/epoch_order.h"
#include "coordinator/dataset/dataload_round.h"
#include "inprocess/local_node_client.h"
#include "wire/dataload_codec.h"
#include "wire/dataload_report_codec.h"

namespace ckpt {
namespace {

// A node's report of two ranks x two workers, each rank's first batch from
// worker 1 in 0.25 s.
DataloadReport Good() {
  DataloadReport r;
  r.order = kEpochOrderName;
  for (uint32_t rank = 0; rank < 2; ++rank) {
    RankEpochReport& e = r.ranks.emplace_back();
    e.rank = rank;
    e.samples = 8;
    e.batches = 2;
    e.seconds = 0.5;
    e.first_batch_seconds = 0.25;
    e.first_batch = {1, 0.03125, 0.0625, 0.125, 0.03125, 4, 4, 1};
    for (uint32_t w = 0; w < 2; ++w) {
      r.workers.push_back({rank, w, 4, 1, 4, 0, 0, 1, 0});
    }
  }
  return r;
}

absl::Status Check(const DataloadReport& r) {
  LocalNodeClient node(0, "host", 10);
  DataloadPlan plan;
  plan.uri = "mem://check/data";
  plan.ranks_per_node = 2;
  plan.loader.batch_size = 4;
  plan.loader.num_workers = 2;
  plan.cache_mode = CacheMode::kNone;
  DataloadRound round({&node}, plan);
  RoundResult result;
  round.Begin(&result);
  DatasetSpec spec;
  spec.format = DatasetFormat::kFiles;
  spec.samples = 16;
  spec.sample_bytes = 1000;
  spec.seed = 1;
  DataloadPrepared p;
  p.manifest = DatasetManifestToJson({spec, ComputeTotals(spec), "run-c", 0});
  PrepareOutcome prepared;
  prepared.workload_outcome = EncodeDataloadPrepared(p);
  round.Prepared({prepared}, &result);
  PhaseOutcome report;
  report.workload_report = EncodeDataloadReport(r);
  report.ranks.resize(2);
  report.ranks[1].rank = 1;
  return round.CheckReport(0, report, "node 0");
}

TEST(DataloadReportCheck, AFirstBatchThatIsNotItsPartsIsRefused) {
  const absl::Status good = Check(Good());
  ASSERT_TRUE(good.ok()) << good;
  struct Case {
    const char* what;
    std::function<void(RankEpochReport&)> change;
    const char* says;
  };
  const Case cases[] = {
      {"a negative part",
       [](RankEpochReport& e) {
         e.first_batch.worker_start_seconds = -1;
         e.first_batch.reads_seconds += 1.03125;
       },
       "with a part of -1 s"},
      {"parts that do not add up",
       [](RankEpochReport& e) { e.first_batch.reads_seconds = 2; },
       "in parts adding up to 2.125 s, not 0.25 s"},
      {"a worker the rank does not have",
       [](RankEpochReport& e) { e.first_batch.worker = 2; }, "from worker 2"},
      {"more samples than the rank reads",
       [](RankEpochReport& e) { e.first_batch.samples_read = 9; },
       "after 9 samples"},
      {"more requests than its worker made",
       [](RankEpochReport& e) { e.first_batch.requests = 5; },
       "after 5 requests"},
      {"parts and no first batch",
       [](RankEpochReport& e) { e.first_batch_seconds = -1; },
       "in parts, and no first batch"},
  };
  for (const Case& c : cases) {
    DataloadReport r = Good();
    c.change(r.ranks[1]);
    const absl::Status s = Check(r);
    EXPECT_TRUE(absl::IsDataLoss(s)) << c.what << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(),
                                  "node 0 reported rank 1's first batch ") &&
                absl::StrContains(s.message(), c.says))
        << c.what << ": " << s;
  }
}

}  // namespace
}  // namespace ckpt
