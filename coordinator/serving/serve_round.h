// The coordinator's side of a serve round (workload "serve"; the node's
// side in node/serving/serve_workload.h): making a generated model (each
// node a share of its files; on node-local disks each node a whole copy;
// the manifest written last, on the round's clock, once every node is
// done), loading it (every node one serving replica of `ranks` ranks, from
// the common start; the round's figures are each replica's and rank's
// times to first and last byte), or removing it.
#ifndef CKPTBENCH_COORDINATOR_SERVING_SERVE_ROUND_H_
#define CKPTBENCH_COORDINATOR_SERVING_SERVE_ROUND_H_

#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/serving/model_manifest.h"
#include "common/serving/serve_job.h"
#include "coordinator/results.h"
#include "coordinator/round/round_workload.h"
#include "coordinator/serving/serve_results.h"

namespace ckpt {

struct ServePlan {
  std::string run_id;
  std::string uri;  // "{node}" stands for the node's index
  bool node_local = false;
  bool generated = true;
  GeneratedModel model;
  uint64_t model_bytes = 0;  // generated: its files' bytes
  uint64_t model_files = 0;  // generated: its files
  uint32_t ranks = 1;
  ServeReadMode read_mode = ServeReadMode::kStream;
  ServeSplit split = ServeSplit::kTp;
  uint32_t concurrency = 8;
  uint64_t chunk_bytes = 8 << 20;
  std::string download_path;   // download: each node's local directory
  bool hold = false;           // ranks keep their shares in host memory
  bool on_gpu = false;         // ACCELERATOR=gpu: in GPU memory instead
  double stagger_seconds = 0;  // loads: node i starts i x this late
  uint32_t write_threads = 4;
  uint64_t block_size = 4 << 20;
  bool fsync = true;
  CacheMode cache_mode = CacheMode::kAuto;
  BackendOptions backend;
};

class ServeRound : public RoundWorkload {
 public:
  // `model` receives what a make or remove round did and what a load round
  // found of the model; a load round's own figures go to its section.
  ServeRound(std::vector<NodeClient*> nodes, ServePlan plan, ServeAction action,
             int index, ServingModelResult* model);

  void Begin(RoundResult* result) override;
  std::string Title(RoundNameForm form) const override;
  uint64_t ProgressBytes() const override;
  PhaseJob BuildPrepare(size_t node) override;
  void Prepared(const std::vector<PrepareOutcome>& prepared,
                RoundResult* result) override;
  double StartDelaySeconds(size_t node) const override;
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
  const ServePlan plan_;
  const ServeAction action_;
  const int index_;
  ServingModelResult* const model_;
  std::vector<ServePrepared> prepared_;  // per node
  std::vector<bool> reused_;             // making, per node
};

// The round's name as the summary and the report show it: "make model",
// "load 2", "remove model".
std::string ServeRoundName(const RoundResult& r);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_SERVING_SERVE_ROUND_H_
