// `ckptbench sweep FILE [key=a,b ...]`: every run of an experiment's sweep,
// one after another in this process, each exactly as `ckptbench run` would
// do it, under DIR/NNN-<values>/. Every point is loaded, validated and
// planned before the first run (sweep/sweep_plan.h), so a typo fails
// before any I/O; the manifest (DIR/sweep.json) is written first
// (sweep/sweep_dir.h); the runs go one after another, --resume skipping
// the finished ones, until a signal (sweep/sweep_runs.h); then the
// collated outputs.
#include <unistd.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/exit_code.h"
#include "common/experiment.h"
#include "common/inspection.h"
#include "common/log.h"
#include "common/storage_uri.h"
#include "common/text.h"
#include "coordinator/coordinator.h"
#include "coordinator/progress.h"
#include "coordinator/workload_registry.h"
#include "main/commands.h"
#include "main/run_support.h"
#include "node/dataset/manifest_read.h"
#include "node/storage/storage_factory.h"
#include "report/html_report.h"
#include "report/sweep_data.h"
#include "sweep/sweep_dir.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_runs.h"

namespace ckpt {
namespace {

int BadInput(const std::string& message) {
  PrintError(message);
  return 2;
}

void PrintPoints(const SweepData& data) {
  std::fputs(SweepPointsTable(data).c_str(), stdout);
}

// One run of the sweep, as `ckptbench run` would do it.
int RunOne(const CliArgs& args, const Experiment& experiment,
           const SweepPlan& plan, const SweepRunTarget& target,
           SignalWatcher& signals) {
  const SweepRun& run = plan.runs[target.index];
  RunSetup setup;
  setup.result.sweep = {
      experiment.name, run.index,      static_cast<int>(plan.runs.size()),
      run.name,        run.point_name, run.repeat,
      run.values};
  const CheckedRun& checked = plan.checked[target.index];
  if (int code = PrepareRun(target.prepare ? *checked.prepare : checked.options,
                            target.dir, &setup);
      code != 0) {
    return code;
  }
  const Config& config = setup.loaded.config;
  setup.result.clocks = target.clocks;
  std::unique_ptr<ProgressPrinter> progress;
  if (!args.quiet) {
    progress = std::make_unique<ProgressPrinter>(config.run.progress_interval,
                                                 isatty(STDERR_FILENO) != 0);
    progress->SetContext(
        absl::StrFormat("[run %d/%zu %s]", run.index + 1, plan.runs.size(),
                        run.point_name.empty() ? run.name : run.point_name));
  }
  Coordinator coordinator(config, target.nodes, progress.get(), target.run_id);
  // A prepare finishes the preparing run an earlier attempt of it left.
  coordinator.TakeOverOf(target.take_over);
  // A prepare's result is the dataset's, replaced on --resume.
  return ExecuteRun(target.dir, coordinator, signals, &setup.result,
                    /*overwrite=*/target.prepare);
}

// Stops serving, writes the collated outputs and prints the points.
int Finish(const CliArgs& args, const Experiment& experiment,
           const SweepPlan& plan, const std::string& dir, SweepRuns& sweep,
           SignalWatcher& signals) {
  // The signal that stopped the sweep is taken (the collated outputs are
  // still written); another one ends the process at once.
  signals.Take();
  signals.Watch([](const std::string& name) {
    PrintError(absl::StrCat(name, ": exiting before the sweep's outputs"));
    std::fflush(nullptr);
    _exit(ToInt(ExitCode::kInterrupted));
  });
  const std::string& interrupted = sweep.interrupted();
  // Interrupted or a node lost: 3, which a restart (--resume) may finish;
  // a run that failed otherwise: 1.
  const ExitCode end = !interrupted.empty() || !sweep.lost_node().empty()
                           ? ExitCode::kInterrupted
                       : sweep.failed() > 0 ? ExitCode::kFailed
                                            : ExitCode::kOk;
  sweep.StopServing(end, !interrupted.empty() ? "sweep interrupted"
                         : !sweep.lost_node().empty()
                             ? "sweep stopped: a node was lost"
                             : "");
  auto data = LoadSweepDir(dir);
  if (!data.ok()) {
    PrintError(std::string(data.status().message()));
    return end == ExitCode::kOk ? 1 : ToInt(end);
  }
  absl::Status wrote = WriteSweepOutputs(*data);
  if (!wrote.ok()) PrintError(std::string(wrote.message()));
  PrintPoints(*data);
  int finished = 0;
  for (const auto& r : data->runs) finished += r.has_result ? 1 : 0;
  std::printf(
      "\nsweep %s: %d of %zu run(s) finished (%d this time, %d before), %d "
      "failed\nresults: %s (collated_results.json, results.csv, "
      "report.html)\n",
      experiment.name.c_str(), finished, plan.runs.size(),
      finished - sweep.done_before(), sweep.done_before(), sweep.failed(),
      dir.c_str());
  std::fflush(stdout);
  if (!interrupted.empty()) {
    std::fprintf(stderr,
                 "ckptbench: sweep interrupted by %s; finish it with: "
                 "ckptbench sweep %s ... --results-dir %s --resume\n",
                 interrupted.c_str(), args.positional[0].c_str(), dir.c_str());
    return ToInt(end);
  }
  if (!sweep.lost_node().empty()) {
    std::fprintf(stderr,
                 "ckptbench: sweep stopped: run %s lost a node (its "
                 "result.json says which); finish it, every node there, with: "
                 "ckptbench sweep %s ... --results-dir %s --resume\n",
                 EscapeForTerminal(sweep.lost_node()).c_str(),
                 args.positional[0].c_str(), dir.c_str());
    return ToInt(end);
  }
  return sweep.failed() == 0 && wrote.ok() ? 0 : 1;
}

// What is at a prepare's target on this machine, as a node's Inspect would
// find it (its manifest, else the free space there): local file systems
// only, a dry run sends no request to a store.
std::optional<DatasetLook> LookHere(const CheckedRun& c) {
  if (IsObjectStoreUri(c.dataset)) return std::nullopt;
  auto where = OpenStorage(c.dataset, BackendOptionsOf(c.config));
  if (!where.ok()) return std::nullopt;
  DatasetLook look;
  auto text =
      ReadManifest(*where->storage, where->path, EscapeForTerminal(c.dataset));
  look.manifest_found = text.ok() && text->has_value();
  if (look.manifest_found) return look;
  if (const std::optional<uint64_t> free =
          where->storage->FreeBytes(where->path)) {
    look.free_known = true;
    look.free_bytes = *free;
  }
  return look;
}

// What each point's prepare writes, once per target, as the preparing
// workload says it; *fits false when one does not fit where it goes.
std::vector<std::string> DescribePrepares(const Experiment& experiment,
                                          const SweepPlan& plan, bool* fits) {
  const PrepareDescription* describe =
      WorkloadRegistry::BuiltIn().PrepareDescriptionOf(experiment.prepare);
  std::vector<std::string> prepares;
  if (describe == nullptr) return prepares;
  std::set<std::string> seen;
  for (const CheckedRun& c : plan.checked) {
    if (!c.prepare || !seen.insert(c.dataset).second) continue;
    prepares.push_back((*describe)(c.config, LookHere(c), fits));
  }
  return prepares;
}

}  // namespace

int SweepCommand(const CliArgs& args) {
  SignalWatcher signals;  // first, before any other thread exists
  if (args.positional.size() != 1) {
    return BadInput(
        "sweep: expected one experiment file: ckptbench sweep FILE "
        "[key=value | key=a,b,c ...] [--results-dir DIR] [--resume]");
  }
  if (!args.config_path.empty()) {
    return BadInput(
        "sweep: --config does not apply; the experiment file is the "
        "configuration (its defaults: list composes group files)");
  }
  auto experiment =
      LoadExperiment(args.positional[0], args.overrides, args.smoke);
  if (!experiment.ok()) {
    return BadInput(std::string(experiment.status().message()));
  }
  auto plan = PlanSweep(*experiment);
  if (!plan.ok()) return BadInput(std::string(plan.status().message()));
  if (args.dry_run) {
    // What each prepare writes; one that does not fit where it goes is
    // flagged (the run would refuse it).
    bool fits = true;
    const std::vector<std::string> prepares =
        DescribePrepares(*experiment, *plan, &fits);
    std::printf("%s: %d point(s) x %d repeat(s) = %zu run(s), all valid%s\n",
                experiment->name.c_str(), PointCount(*experiment),
                experiment->repeat, plan->runs.size(),
                fits ? "" : "; a dataset does not fit where it goes (below)");
    for (const auto& p : prepares) std::printf("  %s\n", p.c_str());
    for (const auto& run : plan->runs) std::printf("  %s\n", run.name.c_str());
    return 0;
  }
  auto dir =
      OpenSweepDir(args.results_dir, args.resume,
                   SweepManifest(*experiment, args.overrides, plan->runs));
  if (!dir.ok()) return BadInput(std::string(dir.status().message()));
  LOG_INFO("sweep %s: %zu run(s) into %s", experiment->name, plan->runs.size(),
           *dir);
  SweepRuns sweep(
      *plan, *dir,
      [&](const SweepRunTarget& t) {
        return RunOne(args, *experiment, *plan, t, signals);
      },
      [&] { return signals.Received(); });
  if (absl::Status served = sweep.Serve(WatchWith(signals)); !served.ok()) {
    PrintError(std::string(served.message()));
    return ToInt(FleetExitCode(served));
  }
  sweep.RunAll();
  return Finish(args, *experiment, *plan, *dir, sweep, signals);
}

}  // namespace ckpt
