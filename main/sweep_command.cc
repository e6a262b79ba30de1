// `ckptbench sweep FILE [key=a,b ...]`: every run of an experiment's sweep,
// one after another in this process, each exactly as `ckptbench run` would
// do it, under DIR/NNN-<values>/. Every point is loaded, validated and
// planned before the first run, so a typo fails before any I/O. Points on
// several nodes make this process the coordinator: it serves the node
// agents once (control.*), and a point on k nodes runs on nodes 0..k-1.
// The manifest (DIR/sweep.json) is written first; a run counts as finished
// when its result.json says "ok", which is what --resume goes by (a failed
// run's result is kept as result.failed.json and the run done again). A
// signal stops the sweep after the run in flight is aborted; that run's
// partial result is kept as result.interrupted.json.
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/experiment.h"
#include "common/files.h"
#include "common/health_server.h"
#include "common/log.h"
#include "coordinator/environment.h"
#include "coordinator/fleet.h"
#include "coordinator/local_node_client.h"
#include "main/commands.h"
#include "main/run_support.h"
#include "report/html_report.h"
#include "report/sweep_data.h"
#include "sweep/sweep_dir.h"
#include "sweep/sweep_plan.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

int BadInput(const std::string& message) {
  PrintError(message);
  return 2;
}

void PrintPoints(const SweepData& data) {
  std::printf("\n%-40s %5s %14s %14s %14s %14s\n", "point", "runs",
              "save MiB/s", "round stdev", "load MiB/s", "round stdev");
  for (const auto& p : ByPoint(data)) {
    Spread save = p.save.mib_s(), load = p.load.mib_s();
    std::printf("%-40s %5zu %14.1f %14.1f %14.1f %14.1f\n",
                p.point_name.c_str(), p.runs.size(), p.save.total_mib_s(),
                save.stdev, p.load.total_mib_s(), load.stdev);
  }
  std::printf(
      "MiB/s: the point's timed rounds' bytes over their summed time; round "
      "stdev: of single rounds' MiB/s\n");
}

// The sweep's runs, one after another, in this process.
class SweepRuns {
 public:
  SweepRuns(const CliArgs& args, const Experiment& experiment,
            const SweepPlan& plan, const std::string& dir,
            SignalWatcher& signals)
      : args_(args),
        experiment_(experiment),
        plan_(plan),
        dir_(dir),
        signals_(signals) {}

  // Points on several nodes: serve the node agents once for every run (a
  // point on k nodes uses nodes 0..k-1); on one node, only the health
  // endpoint, which a probe still asks. Non-zero: the exit code.
  int Serve() {
    const Config& first = plan_.checked[0].config;
    if (plan_.max_nodes > 1) {
      auto f = StartFleet(first.control, plan_.max_nodes, NewRunId(),
                          WatchWith(signals_));
      if (!f.ok()) {
        PrintError(std::string(f.status().message()));
        return absl::IsInvalidArgument(f.status()) ? 2 : 1;
      }
      fleet_ = std::move(*f);
    } else if (first.control.coordinator_health_port > 0) {
      auto h = HealthServer::Start(first.control.coordinator_health_port,
                                   "control.coordinator_health_port");
      if (!h.ok()) return BadInput(std::string(h.status().message()));
      health_ = std::move(*h);
    }
    return 0;
  }

  // Every run not finished before, until a signal.
  void RunAll() {
    for (size_t i = 0; i < plan_.runs.size(); ++i) {
      const SweepRun& run = plan_.runs[i];
      const std::string run_dir = (fs::path(dir_) / run.name).string();
      if (fs::exists(fs::path(run_dir) / "result.json")) {
        if (FinishedOk(run_dir)) {
          ++done_before_;
          continue;
        }
        // A failed run is run again; its result is kept beside.
        std::error_code ec;
        fs::rename(fs::path(run_dir) / "result.json",
                   fs::path(run_dir) / "result.failed.json", ec);
      }
      if (interrupted_ = signals_.Received(); !interrupted_.empty()) return;
      if (!RunOne(i, run_dir)) return;
    }
  }

  // Stops serving, writes the collated outputs and prints the points.
  int Finish() {
    // The signal that stopped the sweep is taken (the collated outputs are
    // still written); another one ends the process at once.
    signals_.Take();
    signals_.Watch([](const std::string& name) {
      PrintError(absl::StrCat(name, ": exiting before the sweep's outputs"));
      std::fflush(nullptr);
      _exit(1);
    });
    if (fleet_) {
      fleet_->server->Shutdown(failed_ == 0 && interrupted_.empty(),
                               interrupted_.empty() ? "" : "sweep interrupted");
    }
    auto data = LoadSweepDir(dir_);
    if (!data.ok()) {
      PrintError(std::string(data.status().message()));
      return 1;
    }
    absl::Status wrote = WriteSweepOutputs(*data);
    if (!wrote.ok()) {
      PrintError(std::string(wrote.message()));
    }
    PrintPoints(*data);
    int finished = 0;
    for (const auto& r : data->runs) finished += r.has_result ? 1 : 0;
    std::printf(
        "\nsweep %s: %d of %zu run(s) finished (%d this time, %d before), %d "
        "failed\nresults: %s (collated_results.json, results.csv, "
        "report.html)\n",
        experiment_.name.c_str(), finished, plan_.runs.size(),
        finished - done_before_, done_before_, failed_, dir_.c_str());
    std::fflush(stdout);
    if (!interrupted_.empty()) {
      std::fprintf(stderr,
                   "ckptbench: sweep interrupted by %s; finish it with: "
                   "ckptbench sweep %s ... --results-dir %s --resume\n",
                   interrupted_.c_str(), args_.positional[0].c_str(),
                   dir_.c_str());
      return 1;
    }
    return failed_ == 0 && wrote.ok() ? 0 : 1;
  }

 private:
  // Run i into run_dir, as `ckptbench run` would; false when a signal
  // stopped it (its partial result kept as result.interrupted.json).
  bool RunOne(size_t i, const std::string& run_dir) {
    const SweepRun& run = plan_.runs[i];
    const size_t total = plan_.runs.size();
    LOG_INFO("sweep run %d/%zu: %s", run.index + 1, total, run.name);
    RunSetup setup;
    setup.result.sweep = {
        experiment_.name, run.index,      static_cast<int>(total),
        run.name,         run.point_name, run.repeat,
        run.values};
    if (PrepareRun(plan_.checked[i].options, run_dir, &setup) != 0) {
      ++failed_;
      return true;
    }
    const Config& config = setup.loaded.config;
    // One in-process node for the whole sweep, as a fleet's node agents
    // serve every run of theirs: its storage (connection pools,
    // credentials) stays warm from one run to the next.
    if (!local_) {
      local_ = std::make_unique<LocalNodeClient>(0, HostName(),
                                                 config.run.progress_interval);
    }
    local_->set_progress_interval(config.run.progress_interval);
    std::vector<NodeClient*> clients = {local_.get()};
    if (fleet_) {
      const size_t k = static_cast<size_t>(config.cluster.num_nodes);
      clients.assign(fleet_->nodes.begin(), fleet_->nodes.begin() + k);
      setup.result.clocks.assign(fleet_->clocks.begin(),
                                 fleet_->clocks.begin() + k);
    }
    std::unique_ptr<ProgressPrinter> progress;
    if (!args_.quiet) {
      progress = std::make_unique<ProgressPrinter>(config.run.progress_interval,
                                                   isatty(STDERR_FILENO) != 0);
      progress->SetContext(
          absl::StrFormat("[run %d/%zu %s]", run.index + 1, total,
                          run.point_name.empty() ? run.name : run.point_name));
    }
    Coordinator coordinator(config, setup.plan, clients, progress.get());
    int code = ExecuteRun(run_dir, coordinator, signals_, &setup.result);
    if (interrupted_ = signals_.Received(); !interrupted_.empty()) {
      std::error_code ec;
      fs::rename(fs::path(run_dir) / "result.json",
                 fs::path(run_dir) / "result.interrupted.json", ec);
      return false;
    }
    if (code != 0) ++failed_;
    return true;
  }

  const CliArgs& args_;
  const Experiment& experiment_;
  const SweepPlan& plan_;
  const std::string dir_;
  SignalWatcher& signals_;
  std::optional<Fleet> fleet_;
  std::unique_ptr<HealthServer> health_;
  std::unique_ptr<LocalNodeClient> local_;
  int failed_ = 0, done_before_ = 0;
  std::string interrupted_;
};

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
  auto experiment = LoadExperiment(args.positional[0], args.overrides);
  if (!experiment.ok()) {
    return BadInput(std::string(experiment.status().message()));
  }
  auto plan = PlanSweep(*experiment);
  if (!plan.ok()) return BadInput(std::string(plan.status().message()));
  if (args.dry_run) {
    std::printf("%s: %d point(s) x %d repeat(s) = %zu run(s), all valid\n",
                experiment->name.c_str(), PointCount(*experiment),
                experiment->repeat, plan->runs.size());
    for (const auto& run : plan->runs) std::printf("  %s\n", run.name.c_str());
    return 0;
  }
  auto dir =
      OpenSweepDir(args.results_dir, args.resume,
                   SweepManifest(*experiment, args.overrides, plan->runs));
  if (!dir.ok()) return BadInput(std::string(dir.status().message()));
  LOG_INFO("sweep %s: %zu run(s) into %s", experiment->name, plan->runs.size(),
           *dir);
  SweepRuns sweep(args, *experiment, *plan, *dir, signals);
  if (int code = sweep.Serve(); code != 0) return code;
  sweep.RunAll();
  return sweep.Finish();
}

}  // namespace ckpt
