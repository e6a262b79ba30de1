// A workload's whole run, as the coordinator drives it: its checks before
// any round, then its rounds (each through the round protocol,
// coordinator/round/round_protocol.h), its results added to the run's as
// they end. The coordinator keeps what every workload shares (the
// RunContext: nodes, listings, step claims, publishing, signals); each
// workload brings the rest in its own folder and is registered once
// (coordinator/workload_registry.h). docs/architecture.md says how to add
// one.
#ifndef CKPTBENCH_COORDINATOR_RUN_WORKLOAD_H_
#define CKPTBENCH_COORDINATOR_RUN_WORKLOAD_H_

#include <string_view>

#include "absl/status/status.h"
#include "coordinator/results.h"
#include "coordinator/run_context.h"

namespace ckpt {

class RunWorkload {
 public:
  virtual ~RunWorkload() = default;
  // Before any round, after every node opened the run's object stores:
  // what this workload needs of the storage targets and the nodes. Notes
  // go to `result`.
  virtual absl::Status Preflight(RunContext& ctx, RunResult* result) = 0;
  // Its rounds, each appended to result->rounds (failed ones too) and
  // published as it ends; the first error. Stops starting rounds once
  // ctx.interrupted().
  virtual absl::Status Run(RunContext& ctx, RunResult* result) = 0;
};

// A timed round shorter than this is flagged "short_phase" and warned
// about: its rate is mostly noise.
inline constexpr double kShortPhaseSeconds = 1.0;
// What a short checkpoint round asks for instead.
inline constexpr std::string_view kLargerCheckpoint =
    "a larger checkpoint (NUM_LAYERS, model.name) or more ranks";
// Flags a timed round that ran under kShortPhaseSeconds; the warning says
// what would make it longer (`expected`: the workload's own advice).
void FlagShortPhase(RoundResult* round,
                    std::string_view expected = kLargerCheckpoint);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_RUN_WORKLOAD_H_
