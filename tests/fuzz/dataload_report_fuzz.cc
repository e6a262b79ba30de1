// libFuzzer target: the coordinator's check of a node's dataload report
// (v1::DataloadReport, PhaseReport.workload_report: what a node says its
// ranks and workers read in an epoch), for a map-style epoch, an iterable
// one, and an iterable epoch of a listed dataset. What passes
// DataloadRound::CheckReport is aggregated into the epoch and written as
// result.json and the summary table. Nothing may crash or be undefined,
// and nothing that passes may make the aggregate non-finite, nor a first
// batch whose parts are not its time.
//
// Seeds (tests/fuzz/corpus/dataload_report) are real reports: with
// CKPTBENCH_FUZZ_WRITE_SEEDS=DIR, the target first makes a dataset on
// memory storage and reads it with an in-process node through the round
// protocol, map-style and iterable, and writes what the node reported.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_manifest.h"
#include "coordinator/dataset/datagen_round.h"
#include "coordinator/dataset/dataload_round.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/json_codec.h"
#include "coordinator/round/round_protocol.h"
#include "coordinator/summary.h"
#include "inprocess/local_node_client.h"
#include "proto/ckptbench/v1/dataset.pb.h"
#include "wire/dataload_codec.h"

namespace ckpt {
namespace {

namespace v1 = ::ckptbench::v1;

// Records the dataload reports of the in-process node it wraps.
class RecordingNode : public LocalNodeClient {
 public:
  RecordingNode() : LocalNodeClient(0, "fuzz-host", 10) {}
  absl::StatusOr<v1::PhaseReport> SendStartPhase(
      const v1::StartPhaseRequest& r, const WireListener& listener) override {
    auto rep = LocalNodeClient::SendStartPhase(r, listener);
    if (rep.ok() && !rep->workload_report().empty()) {
      reports.push_back(rep->workload_report());
    }
    return rep;
  }
  std::vector<std::string> reports;
};

DatasetSpec Spec() {
  DatasetSpec spec;
  spec.format = DatasetFormat::kTar;
  spec.samples = 40;
  spec.sample_bytes = 2000;
  spec.sample_spread = 500;
  spec.shard_bytes = 16 << 10;
  spec.seed = 1;
  return spec;
}

DataloadPlan Plan(DataAccess access, bool listed) {
  DataloadPlan plan;
  plan.uri = "mem://fuzz/data";
  plan.ranks_per_node = 2;
  plan.seed = 1;
  plan.loader.access = access;
  plan.loader.batch_size = 4;
  plan.loader.num_workers = 2;
  plan.loader.shuffle_buffer = 8;
  plan.loader.compute_time = 0.001;
  plan.block_size = 64 << 10;
  plan.cache_mode = CacheMode::kNone;
  plan.listed = listed;
  return plan;
}

// What node 0 found at prepare: the manifest, or a listing of as many
// samples.
PrepareOutcome Prepared(bool listed) {
  const DatasetSpec spec = Spec();
  const DatasetTotals totals = ComputeTotals(spec);
  DataloadPrepared p;
  if (listed) {
    DatasetListing& l = p.listing.emplace();
    l.objects = totals.objects;
    l.bytes = totals.bytes;
    l.samples = spec.samples;
    l.sample_bytes = totals.sample_bytes;
    l.list_seconds = 0.01;
    l.index_seconds = 0.02;
  } else {
    p.manifest = DatasetManifestToJson({spec, totals, "run-fuzz", 0});
  }
  PrepareOutcome out;
  out.workload_outcome = EncodeDataloadPrepared(p);
  return out;
}

RecordingNode& TheNode() {
  static RecordingNode* node = new RecordingNode();
  return *node;
}

// The report `input` checked as node 0's for an epoch of `access`, and
// aggregated into result.json and the summary when it passes.
absl::Status CheckAndAggregate(const std::string& input, DataAccess access,
                               bool listed) {
  DataloadRound round({&TheNode()}, Plan(access, listed));
  RunResult run;
  run.workload = kDataloadWorkload;
  RoundResult& result = run.rounds.emplace_back();
  round.Begin(&result);
  const PrepareOutcome prepared = Prepared(listed);
  round.Prepared({prepared}, &result);
  PhaseOutcome report;
  report.workload_report = input;
  report.ranks.resize(2);
  report.ranks[1].rank = 1;
  const absl::Status checked = round.CheckReport(0, report, "node 0");
  if (!checked.ok()) return checked;
  result.seconds = 1;
  round.Aggregate({report}, {prepared}, &result);
  const EpochResult& epoch = *EpochOf(result);
  if (!std::isfinite(epoch.samples_per_second) ||
      !std::isfinite(epoch.utilization) ||
      !std::isfinite(epoch.mib_per_second)) {
    std::abort();  // a report that passed the check made no number
  }
  if (epoch.first_batch) {
    // The slowest rank's first batch is its parts.
    const EpochResult::FirstBatch& f = *epoch.first_batch;
    const FirstBatchParts& p = f.parts;
    const double sum = f.node_start_seconds + p.worker_start_seconds +
                       p.connect_seconds + p.reads_seconds + p.handoff_seconds;
    if (!(std::abs(sum - epoch.first_batch_seconds) <=
          1e-6 + 1e-9 * epoch.first_batch_seconds) ||
        p.worker_start_seconds < 0 || p.connect_seconds < 0 ||
        p.reads_seconds < 0 || p.handoff_seconds < 0) {
      std::abort();
    }
  }
  (void)ResultToJson(run);
  (void)SummaryTable(run);
  return absl::OkStatus();
}

void WriteSeeds(const std::string& dir) {
  RecordingNode node;
  RoundProtocol protocol({&node}, nullptr, 10);
  DatasetResult made;
  DatagenPlan gen;
  gen.run_id = "run-fuzz";
  gen.spec = Spec();
  gen.uri = "mem://fuzz/data";
  gen.block_size = 64 << 10;
  DatagenRound datagen({&node}, gen, &made);
  RoundResult g = protocol.Run(datagen, {"run-fuzz", 1, nullptr});
  std::fprintf(stderr, "datagen: %s %s\n", std::string(Name(g.status)).c_str(),
               g.error.c_str());
  uint64_t id = 2;
  for (DataAccess access : {DataAccess::kMap, DataAccess::kIterable}) {
    DataloadRound load({&node}, Plan(access, false));
    RoundResult r = protocol.Run(load, {"run-fuzz", id++, nullptr});
    std::fprintf(stderr, "dataload %s: %s %s\n",
                 std::string(Name(access)).c_str(),
                 std::string(Name(r.status)).c_str(), r.error.c_str());
  }
  // The first report is datagen's; then map-style's and iterable's, each
  // passing the check it seeds (no false alarm).
  int k = 0;
  for (size_t i = 1; i < node.reports.size(); ++i) {
    const DataAccess access = i == 1 ? DataAccess::kMap : DataAccess::kIterable;
    const absl::Status s = CheckAndAggregate(node.reports[i], access, false);
    std::fprintf(
        stderr, "seed %d (%s): %s\n", k, std::string(Name(access)).c_str(),
        s.ok() ? "passes the check" : std::string(s.message()).c_str());
    std::ofstream(dir + "/report-" + std::string(Name(access)),
                  std::ios::binary)
        << node.reports[i];
    ++k;
  }
  std::fprintf(stderr, "wrote %d seeds to %s\n", k, dir.c_str());
}

}  // namespace
}  // namespace ckpt

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("CKPTBENCH_FUZZ_WRITE_SEEDS")) {
    ckpt::WriteSeeds(dir);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ckpt;
  const std::string input(reinterpret_cast<const char*>(data), size);
  (void)CheckAndAggregate(input, DataAccess::kMap, false);
  (void)CheckAndAggregate(input, DataAccess::kIterable, false);
  (void)CheckAndAggregate(input, DataAccess::kMap, true);
  (void)CheckAndAggregate(input, DataAccess::kIterable, true);
  return 0;
}
