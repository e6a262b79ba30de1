// The serve workload's run (run.workload=serve): a model loaded as serving
// replicas load it, every node one replica of cluster.num_devices ranks.
// A generated model (serve.source=ckptbench) is made first when its
// manifest is not there (a make round, timed, its figures the run's
// "serving_model" section's), then serve.loads cold load rounds
// (coordinator/serving/serve_round.h), each with its "replica_load"
// section; serve.remove=true runs one removal round instead.
#ifndef CKPTBENCH_COORDINATOR_SERVING_SERVE_RUN_H_
#define CKPTBENCH_COORDINATOR_SERVING_SERVE_RUN_H_

#include "coordinator/report_parts.h"
#include "coordinator/run_workload.h"
#include "coordinator/summary_parts.h"

namespace ckpt {

class ServeRun : public RunWorkload {
 public:
  absl::Status Preflight(RunContext& ctx, RunResult* result) override;
  absl::Status Run(RunContext& ctx, RunResult* result) override;
};

// Its parts of the terminal summary (serve_summary.cc).
WorkloadSummary ServeSummary();

// Its section of the HTML report (serve_html.cc): the load rounds'
// replicas and one load's ranks on a timeline; "" when no run has a load.
std::string ReplicaLoadSection(const ReportInput& input);

// Its checks of the configuration (serve_config_checks.cc): serve.* set for
// another workload's run refused; for its own, what this build reads and
// what a listed model needs.
absl::Status CheckServeKeys(const Config& config, const KeyCheckScope& scope);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_SERVING_SERVE_RUN_H_
