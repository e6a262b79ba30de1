// Drives a whole run: every node opens the run's object stores, then the
// run's workload (coordinator/run_workload.h, found by run.workload in the
// registry) checks its targets and runs its rounds; afterwards the steps
// the run committed are retired. What every workload shares is the
// RunContext (coordinator/run_context.h). Results accumulate in the
// RunResult as rounds finish, so a failed run still reports what it
// measured. Not thread-safe, except Interrupt and Snapshot.
#ifndef CKPTBENCH_COORDINATOR_COORDINATOR_H_
#define CKPTBENCH_COORDINATOR_COORDINATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/config.h"
#include "common/exit_code.h"
#include "coordinator/progress.h"
#include "coordinator/results.h"
#include "coordinator/round/node_client.h"
#include "coordinator/run_context.h"
#include "coordinator/run_workload.h"
#include "coordinator/workload_registry.h"

namespace ckpt {

class Coordinator {
 public:
  // `run_id` "" = a new one. `registry`: where run.workload is found.
  Coordinator(const Config& config, std::vector<NodeClient*> nodes,
              ProgressPrinter* progress, std::string run_id = "",
              const WorkloadRegistry& registry = WorkloadRegistry::BuiltIn());

  // Checks the targets before any round: every node opens the run's object
  // stores, then the workload checks what it needs (e.g. the checkpoint: the
  // save directory writable, a restore path's newest committed checkpoint
  // matching the plan).
  absl::Status Preflight(RunResult* result);

  // Runs every round; returns the first error. `result` holds every round
  // measured, failed ones included.
  absl::Status Run(RunResult* result);

  // Results at an object-store URI (`dir_uri`/`name`), written by node 0
  // with the run's storage settings. `check_only`: before any round, fails
  // with AlreadyExists if the object is there (unless `overwrite`).
  absl::Status PutResult(const std::string& dir_uri, const std::string& name,
                         const std::string& data, bool check_only,
                         bool overwrite);

  // Safe from another thread (the signal thread): tells the nodes to
  // abort, fails the round in flight and starts no further rounds.
  void Interrupt(const std::string& reason) { ctx_.Interrupt(reason); }

  // The run ids of this run's own earlier attempts (a resumed sweep's
  // prepare), whose unfinished work on the same target (a datagen's
  // dataset) this run may finish instead of being refused by its claim.
  void TakeOverOf(std::vector<std::string> run_ids) {
    ctx_.set_take_over(std::move(run_ids));
  }

  // After Run failed: why, as an exit status. kInterrupted when it was
  // interrupted or a node was lost (the same run on new pods may finish),
  // kFailed otherwise.
  ExitCode FailureCode() const;

  // Safe from another thread: the run's result as of the last round that
  // ended (Run publishes a copy as it starts and after every round), for
  // a watchdog that must write what was measured while Run is stuck.
  RunResult Snapshot() const { return ctx_.Snapshot(); }

 private:
  Config config_;
  RunContext ctx_;
  // The run.workload's run, or why there is none.
  absl::StatusOr<std::unique_ptr<RunWorkload>> workload_;
};

std::string NewRunId();

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_COORDINATOR_H_
