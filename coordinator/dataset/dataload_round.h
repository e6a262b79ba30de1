// The coordinator's side of a dataload epoch (workload "dataload", the
// node's side in node/dataset/dataload_workload.h): one round per epoch.
// Each node gets its ranks (ranks per node x nodes make the world, as for
// a checkpoint) and the loader's settings; it reads the dataset's manifest
// itself. The epoch's time runs from the common start to the last rank's
// last batch consumed; samples/s and MiB/s are totals over it. After the
// clock: per rank and per worker figures, the accelerators' utilization,
// merged latency histograms, step-time windows, and the check that the
// samples read are the ones the sampler gave out (order-independent
// digests).
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATALOAD_ROUND_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATALOAD_ROUND_H_

#include <optional>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_manifest.h"
#include "common/dataset/dataset_options.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/dataset/epoch_saves.h"
#include "coordinator/results.h"
#include "coordinator/round/round_workload.h"

namespace ckpt {

struct DataloadPlan {
  std::string uri;  // "{node}" stands for the node's index
  bool node_local = false;
  // A dataset ckptbench did not make, of this format: the nodes list it.
  bool listed = false;
  DatasetFormat listed_format = DatasetFormat::kTar;
  ListLimits list_limits;  // its listing's bounds (dataset.list_*)
  int ranks_per_node = 1;
  uint64_t epoch = 0;  // 0-based
  uint64_t seed = 0;
  DataloadOptions loader;
  bool warm = false;  // this epoch may read from caches
  CacheMode cache_mode = CacheMode::kAuto;
  uint64_t block_size = 4 << 20;
  BackendOptions backend;
  // Checkpoints during the epoch (dataload.checkpoint_every), or null.
  EpochSaves* saves = nullptr;
};

class DataloadRound : public RoundWorkload {
 public:
  DataloadRound(std::vector<NodeClient*> nodes, DataloadPlan plan);

  void Begin(RoundResult* result) override;
  std::string Title(RoundNameForm form) const override;
  uint64_t ProgressBytes() const override { return progress_bytes_; }
  // The dataset as node 0's manifest says (after Prepared).
  const std::optional<DatasetManifest>& manifest() const { return manifest_; }
  // A listed dataset as the nodes found it (after Prepared): the spec's
  // format, samples and mean size, and the listing's totals and costs.
  const std::optional<DatasetResult>& listed() const { return listed_; }
  PhaseJob BuildPrepare(size_t node) override;
  void Prepared(const std::vector<PrepareOutcome>& prepared,
                RoundResult* result) override;
  void OnAction(size_t node, const ActionAsk& ask,
                ActionReplyFn reply) override;
  absl::Status CheckReport(size_t node, const PhaseOutcome& report,
                           const std::string& who) override;
  void Aggregate(const std::vector<PhaseOutcome>& reports,
                 const std::vector<PrepareOutcome>& prepared,
                 RoundResult* result) override;

 private:
  uint32_t World() const {
    return static_cast<uint32_t>(nodes_.size() * plan_.ranks_per_node);
  }
  bool Iterable() const { return plan_.loader.access == DataAccess::kIterable; }
  // The most samples one rank may report this epoch.
  uint64_t MostPerRank() const;
  // CheckReport's steps: each rank's and worker's figures, then the
  // checkpoints' windows (a node's report is hostile until checked).
  absl::Status CheckRankFigures(const DataloadReport& r, size_t node,
                                const std::string& who) const;
  // A rank's first batch in parts (dataload_report.h): parts that are
  // durations adding up to its time, from one of its workers, whose
  // requests and connections it made.
  absl::Status CheckFirstBatch(const RankEpochReport& e,
                               const DataloadReport& r,
                               const std::string& who) const;
  absl::Status CheckSaveFigures(const DataloadReport& r,
                                const std::string& who) const;
  void CheckSamples(uint64_t digest, EpochResult* epoch) const;
  // The checkpoints' windows against the rest of the epoch (`seconds`).
  // `lags`: each report's node's start lag.
  void SumUpSaves(const std::vector<DataloadReport>& reports,
                  const std::vector<double>& lags, double seconds,
                  EpochResult* epoch) const;
  void SetProgressBytes(const DatasetTotals& totals);
  // Node `node`'s listing of a listed dataset.
  void AddListing(size_t node, const DatasetListing& l);

  const std::vector<NodeClient*> nodes_;
  const DataloadPlan plan_;
  // The dataset as node 0's manifest says, and whether every node read
  // the same manifest.
  DatasetSpec spec_;
  std::optional<DatasetManifest> manifest_;
  std::optional<DatasetResult> listed_;
  uint64_t objects_ = 0;  // the dataset's (shards, or sample files)
  bool manifests_agree_ = true;
  uint64_t listing_digest_ = 0;  // node 0's
  uint64_t progress_bytes_ = 0;  // the epoch's, about (known at prepare)
  double dataset_seconds_ = 0;   // the slowest node's, before the epoch
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATALOAD_ROUND_H_
