// The coordinator's side of `ckptbench datagen` (workload "datagen", the
// node's side in node/dataset/datagen_workload.h): one round that makes a
// dataset, or removes one. Every node writes a share of the objects (on
// node-local disks, each node a whole replica: a global shuffle needs
// every sample), timed; once all reported, the manifest is written last
// (by node 0, or by every node on node-local disks), on the round's clock:
// a dataset counts only once it is there. Nodes that found a manifest
// matching the request write nothing (the dataset is reused).
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATAGEN_ROUND_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATAGEN_ROUND_H_

#include <string>
#include <vector>

#include "common/config.h"
#include "common/dataset/dataset_layout.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/results.h"
#include "coordinator/round/round_workload.h"

namespace ckpt {

struct DatagenPlan {
  std::string run_id;
  DatasetSpec spec;  // unused when removing (the manifest says)
  std::string uri;   // "{node}" stands for the node's index
  bool node_local = false;
  bool remove = false;
  int write_threads = 16;
  uint64_t block_size = 4 << 20;
  bool fsync = true;
  BackendOptions backend;
  // Making: this run's own earlier attempts, whose unfinished datagen of
  // the same dataset it may finish (DatagenJob.take_over).
  std::vector<std::string> take_over;
};

class DatagenRound : public RoundWorkload {
 public:
  // `dataset` receives what the round made or found.
  DatagenRound(std::vector<NodeClient*> nodes, DatagenPlan plan,
               DatasetResult* dataset);

  void Begin(RoundResult* result) override;
  std::string Title(RoundNameForm form) const override;
  uint64_t ProgressBytes() const override;
  PhaseJob BuildPrepare(size_t node) override;
  void Prepared(const std::vector<PrepareOutcome>& prepared,
                RoundResult* result) override;
  absl::Status CheckReport(size_t node, const PhaseOutcome& report,
                           const std::string& who) override;
  absl::Status Finish(const std::vector<PhaseOutcome>& reports,
                      RoundResult* result) override;
  void Aggregate(const std::vector<PhaseOutcome>& reports,
                 const std::vector<PrepareOutcome>& prepared,
                 RoundResult* result) override;

 private:
  // The nodes that own a copy: node 0, or all on node-local disks.
  size_t Owners() const { return plan_.node_local ? nodes_.size() : 1; }
  std::string UriOf(size_t node) const;

  const std::vector<NodeClient*> nodes_;
  const DatagenPlan plan_;
  DatasetResult* const dataset_;
  DatasetTotals totals_;      // making: the whole dataset's
  std::vector<bool> reused_;  // per node, from its prepare
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATAGEN_ROUND_H_
