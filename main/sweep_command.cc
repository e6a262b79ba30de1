// `ckptbench sweep FILE [key=a,b ...]`: every run of an experiment's sweep,
// one after another in this process, each exactly as `ckptbench run` would
// do it, under DIR/NNN-<values>/. Every point is loaded, validated and
// planned before the first run (sweep/sweep_plan.h), so a typo fails
// before any I/O; the manifest (DIR/sweep.json) is written first
// (sweep/sweep_dir.h); the runs go one after another, --resume skipping
// the finished ones, until a signal (sweep/sweep_runs.h); then the
// collated outputs.
#include <unistd.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/dataset/dataset_layout.h"
#include "common/dataset/dataset_options.h"
#include "common/exit_code.h"
#include "common/experiment.h"
#include "common/log.h"
#include "common/text.h"
#include "coordinator/coordinator.h"
#include "coordinator/progress.h"
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
  // A prepare finishes the datagen an earlier attempt of it left.
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

}  // namespace

// What a point's prepare: datagen will write: its dataset's objects and
// bytes, and where; *fits false when a local file system has less free
// (the run's preflight would refuse it).
std::string DescribePrepare(const CheckedRun& c, bool* fits) {
  const DatasetSpec spec = DatasetSpecOf(c.config);
  const DatasetTotals totals = ComputeTotals(spec);
  std::string line = absl::StrCat(
      "prepare: datagen writes ", totals.objects, " objects, ",
      FormatBytes(totals.bytes), " (", spec.samples, " samples), to ",
      EscapeForTerminal(c.dataset), " unless its manifest is there");
  // Local file systems only: a dry run sends no request to a store.
  if (IsObjectStoreUri(c.dataset)) return line;
  auto where = OpenStorage(c.dataset, BackendOptionsOf(c.config));
  if (!where.ok()) return line;
  auto text =
      ReadManifest(*where->storage, where->path, EscapeForTerminal(c.dataset));
  if (text.ok() && *text) return absl::StrCat(line, " (it is: reused)");
  const std::optional<uint64_t> free = where->storage->FreeBytes(where->path);
  if (!free) return line;
  if (*free < totals.bytes) {
    *fits = false;
    return absl::StrCat(line, ": DOES NOT FIT, its file system has ",
                        FormatBytes(*free),
                        " free (the run would refuse it: a smaller dataset, "
                        "dataset.samples or dataset.sample_bytes, or another "
                        "storage.path)");
  }
  return absl::StrCat(line, " (", FormatBytes(*free), " free there)");
}

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
    // What each prepare: datagen writes, once per dataset; one that does
    // not fit where it goes is refused, as the run would be.
    std::set<std::string> seen;
    std::vector<std::string> prepares;
    bool fits = true;
    for (const CheckedRun& c : plan->checked) {
      if (!c.prepare || !seen.insert(c.dataset).second) continue;
      prepares.push_back(DescribePrepare(c, &fits));
    }
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
