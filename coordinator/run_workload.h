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

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config_loader.h"
#include "common/inspection.h"
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

// One workload prepared by another: before a sweep's run of this workload,
// with `prepare: <by>`, a run of workload `by` on the same configuration
// makes (or finds) what it reads, once per target in the sweep.
struct Preparation {
  std::string by;  // the preparing workload's name; "" = none
  // For a configuration of this workload: none when it needs no preparing
  // (it reads what the user made); else the values its run (and the
  // preparing run) get on top of it, e.g. where the prepared data lives.
  std::function<std::optional<std::vector<SourcedValue>>(const Config&)> needs;
  // What the preparing run makes for a configuration (its name among the
  // sweep's targets: one preparing run each).
  std::function<std::string(const Config&)> target;
};

// What a preparing workload says in a sweep's dry run (`sweep --dry-run`)
// of its run for a point it prepares: what it will write for `config` (the
// point's) to the Preparation's target, and whether that is there already
// or fits. `look`: what is at the target on this machine, as a node's
// Inspect would find it; nullopt when none was taken (an object store: a
// dry run sends it no request). *fits is set false when it would not fit
// (its run's preflight would refuse it).
using PrepareDescription = std::function<std::string(
    const Config& config, const std::optional<DatasetLook>& look, bool* fits)>;

// A key of one workload that another sets its own way where it embeds the
// first's rounds in its own.
struct KeyInstead {
  std::string key;    // the embedded workload's key, e.g. "run.interval"
  std::string where;  // what sets it there, as a hint in the embedded
                      // workload's errors puts it: "during a dataload
                      // epoch, dataload.checkpoint_every"
};

// One workload embedding another's rounds in its own: dataload's epochs
// take the checkpoint's saves (coordinator/dataset/epoch_saves.h), whose
// interval the epoch's batches set, not run.interval.
struct Embedding {
  std::string workload;  // the embedded workload's name; "" = none
  std::vector<KeyInstead> instead;
};

// What a check of a workload's keys is given besides the configuration.
struct KeyCheckScope {
  bool need_storage = true;  // false for commands that do no I/O (plan)
  // What the workloads that embed this one set instead of its keys (their
  // Embedding::instead, in registration order): for its errors' hints.
  std::vector<KeyInstead> instead;
};

// A workload's checks of the configuration, before any node is asked
// (ValidateConfig, coordinator/config_checks.h, runs them between the
// checks of the keys every run has: the other workloads' first, then the
// run's own workload's).
struct ConfigChecks {
  // Its own keys, given every configuration, whichever workload it runs (a
  // key of its own set for another workload's run is refused here too):
  // OK, or InvalidArgument naming the key, its value and what was
  // expected.
  std::function<absl::Status(const Config&, const KeyCheckScope&)> keys;
  // For its own runs only: what it reads or writes kept apart from the
  // results directory (--results-dir); InvalidArgument naming both.
  std::function<absl::Status(const Config&, const std::string& results_dir)>
      results_apart;
};

// What a workload plans from the configuration, before any node is asked
// (`ckptbench run`, `coordinator` and each of a sweep's points after
// ValidateConfig; `ckptbench plan`). Both are given every configuration,
// whichever workload it runs, as ConfigChecks::keys: the checkpoint's plan
// is made (and its model keys checked) for every run, and every result
// records it.
struct Planning {
  // Makes the plan: OK, or InvalidArgument naming the key and what was
  // expected. With a `result`, records there what the run will do.
  std::function<absl::Status(const Config&, RunResult* result)> record;
  // `ckptbench plan`'s text for the configuration; `per_rank`: each
  // rank's share too.
  std::function<absl::StatusOr<std::string>(const Config&, bool per_rank)>
      describe;
};

// A timed round shorter than this is flagged "short_phase" and warned
// about: its rate is mostly noise.
inline constexpr double kShortPhaseSeconds = 1.0;
// Flags a timed round that ran under kShortPhaseSeconds; the warning says
// what would make it longer (`expected`: the workload's own advice, e.g.
// its keys that make a round larger).
void FlagShortPhase(RoundResult* round, std::string_view expected);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_RUN_WORKLOAD_H_
