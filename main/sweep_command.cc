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
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/experiment.h"
#include "common/files.h"
#include "common/json_utf8.h"
#include "common/log.h"
#include "coordinator/environment.h"
#include "coordinator/local_node_client.h"
#include "coordinator/planner.h"
#include "main/commands.h"
#include "main/fleet.h"
#include "main/health_server.h"
#include "main/run_support.h"
#include "report/html_report.h"
#include "report/sweep_data.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int BadInput(const std::string& message) {
  PrintError(message);
  return 2;
}

// multirun/<date>/<time>, local time; a suffix if a sweep started in the
// same second.
std::string DefaultSweepDir() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char date[16], time[16];
  std::strftime(date, sizeof(date), "%Y-%m-%d", &tm);
  std::strftime(time, sizeof(time), "%H-%M-%S", &tm);
  std::string dir = absl::StrCat("multirun/", date, "/", time);
  std::string candidate = dir;
  for (int i = 1; fs::exists(candidate); ++i) {
    candidate = absl::StrCat(dir, "-", i);
  }
  return candidate;
}

// "<path>/point-NNN": each point of the product its own part of the storage
// target, so points with different plans never read each other's steps.
std::string PointPath(const std::string& path, int point) {
  std::string base = path;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return absl::StrFormat("%s/point-%03d", base, point);
}

struct CheckedRun {
  LoadOptions options;
  Config config;
};

// A group swept in the file whose keys the environment overrides makes
// every point alike: say so (once per key).
void WarnEnvironmentOverGroups(const Experiment& e, const LoadOptions& options,
                               const LoadedConfig& loaded,
                               std::set<std::string>* warned) {
  for (const auto& p : e.params) {
    if (!p.group || p.values.size() < 2) continue;
    std::string prefix =
        (fs::path(e.path).parent_path() / p.canonical).string() + "/";
    for (const auto& v : options.file_values) {
      if (v.where.rfind(prefix, 0) != 0) continue;
      const KeyDef* def = FindKey(v.key);
      if (def == nullptr || loaded.sources.at(def->key) != "environment" ||
          !warned->insert(def->key).second) {
        continue;
      }
      LOG_WARN(
          "%s (%s) from the environment overrides the swept group '%s' in "
          "every point (unset it to let %s set it)",
          def->env, def->key, p.name, v.where);
    }
  }
}

// A run's sources with its point's sub-path, checked the way `run` checks
// them: configuration, validation and plan.
absl::StatusOr<CheckedRun> CheckRun(const Experiment& e, const SweepRun& run,
                                    std::set<std::string>* warned) {
  auto options = RunLoadOptions(e, run);
  if (!options.ok()) return options.status();
  auto loaded = LoadConfig(*options);
  if (!loaded.ok()) return loaded.status();
  WarnEnvironmentOverGroups(e, *options, *loaded, warned);
  const StorageOptions& storage = loaded->config.storage;
  const std::string where = "sweep: the point's own sub-path";
  if (!storage.path.empty()) {
    options->final_values.push_back(
        {"storage.path", PointPath(storage.path, run.point), where});
  }
  if (!storage.restore_path.empty()) {
    options->final_values.push_back({"storage.restore_path",
                                     PointPath(storage.restore_path, run.point),
                                     where});
  }
  loaded = LoadConfig(*options);
  if (!loaded.ok()) return loaded.status();
  const Config& config = loaded->config;
  if (auto s = ValidateConfig(config, /*need_storage=*/true); !s.ok()) {
    return s;
  }
  if (auto plan = MakePlan(PlanOptionsFromConfig(config)); !plan.ok()) {
    return plan.status();
  }
  return CheckedRun{std::move(*options), config};
}

// The control channel is set up once for the whole sweep: it must not vary.
absl::Status SameControl(const Config& a, const Config& b) {
  const ControlOptions &x = a.control, &y = b.control;
  bool same = x.listen == y.listen && x.token == y.token &&
              x.tls_cert == y.tls_cert && x.tls_key == y.tls_key &&
              x.tls_ca == y.tls_ca &&
              x.register_timeout == y.register_timeout &&
              x.node_timeout == y.node_timeout &&
              x.heartbeat_interval == y.heartbeat_interval &&
              x.coordinator_health_port == y.coordinator_health_port;
  if (same) return absl::OkStatus();
  return absl::InvalidArgumentError(
      "control.* / tls.* / auth.* differ between points: the coordinator "
      "serves one control channel for the whole sweep; expected the same "
      "values in every point");
}

// Bounds on what --resume reads back from a results directory.
constexpr uint64_t kMaxManifestBytes = 64ull << 20;
constexpr uint64_t kMaxResultBytes = 1ull << 30;

// Refuses to resume into a directory made by a different sweep.
absl::Status CheckSameSweep(const std::string& manifest_path,
                            const json& manifest) {
  auto text =
      ReadRegularFile(manifest_path, kMaxManifestBytes, "sweep manifest");
  if (!text.ok()) {
    return absl::Status(
        text.status().code(),
        absl::StrCat(text.status().message(),
                     "; --resume needs the --results-dir of an earlier sweep"));
  }
  json old = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (old.is_discarded() || !old.contains("runs")) {
    return absl::InvalidArgumentError(
        absl::StrCat(manifest_path, ": not a sweep manifest"));
  }
  const json& a = old["runs"];
  const json& b = manifest["runs"];
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    std::string was = i < a.size() ? a[i].value("name", "") : "(none)";
    std::string now = i < b.size() ? b[i].value("name", "") : "(none)";
    if (was != now) {
      return absl::InvalidArgumentError(
          absl::StrCat(manifest_path, ": a different sweep: run ", i, " was '",
                       was, "', this sweep's is '", now,
                       "'; resume with the same file and key=value arguments"));
    }
  }
  return absl::OkStatus();
}

// A run whose result.json says it finished without error.
bool FinishedOk(const std::string& run_dir) {
  auto text = ReadRegularFile((fs::path(run_dir) / "result.json").string(),
                              kMaxResultBytes, "result");
  if (!text.ok()) return false;
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  return !j.is_discarded() && j.is_object() && j.value("status", "") == "ok";
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
  const std::vector<SweepRun> runs = ExpandRuns(*experiment);
  std::vector<CheckedRun> checked;
  std::set<std::string> warned;
  int max_nodes = 1;
  for (const auto& run : runs) {
    auto c = CheckRun(*experiment, run, &warned);
    absl::Status s = c.status();
    if (s.ok() && !checked.empty())
      s = SameControl(checked[0].config, c->config);
    if (!s.ok()) {
      return BadInput(absl::StrCat("sweep run ", run.name, ": ", s.message()));
    }
    max_nodes = std::max(max_nodes, c->config.cluster.num_nodes);
    checked.push_back(std::move(*c));
  }
  if (args.dry_run) {
    std::printf("%s: %d point(s) x %d repeat(s) = %zu run(s), all valid\n",
                experiment->name.c_str(), PointCount(*experiment),
                experiment->repeat, runs.size());
    for (const auto& run : runs) std::printf("  %s\n", run.name.c_str());
    return 0;
  }
  if (IsObjectStoreUri(args.results_dir)) {
    return BadInput(absl::StrCat(
        "sweep --results-dir ", args.results_dir,
        ": expected a local directory (s3:// and gs:// results are for "
        "`ckptbench run` and `ckptbench coordinator`)"));
  }
  if (args.resume && args.results_dir.empty()) {
    return BadInput(
        "sweep --resume: expected --results-dir DIR, the "
        "directory of the sweep to finish");
  }
  const std::string dir =
      args.results_dir.empty() ? DefaultSweepDir() : args.results_dir;
  const std::string manifest_path = (fs::path(dir) / "sweep.json").string();
  json manifest = SweepManifest(*experiment, args.overrides, runs);
  // --resume where no sweep started yet starts it: one command for a
  // JobSet's first start and its restarts (deploy/k8s/overlays/sweep).
  std::error_code absent;
  const bool resume =
      args.resume && (fs::symlink_status(manifest_path, absent).type() !=
                      fs::file_type::not_found);
  if (args.resume && !resume) {
    LOG_INFO("sweep --resume: %s holds no sweep yet; starting it", dir);
  }
  if (resume) {
    if (auto s = CheckSameSweep(manifest_path, manifest); !s.ok()) {
      return BadInput(std::string(s.message()));
    }
  } else {
    if (fs::exists(manifest_path)) {
      return BadInput(absl::StrCat(
          dir, " already holds a sweep (", manifest_path,
          "); finish it with --resume or choose another --results-dir"));
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    SanitizeUtf8(manifest);
    if (auto s = WriteFileAtomically(manifest_path, manifest.dump(2) + "\n");
        !s.ok()) {
      return BadInput(std::string(s.message()));
    }
  }
  LOG_INFO("sweep %s: %zu run(s) into %s", experiment->name, runs.size(), dir);
  // Points on several nodes: serve the node agents once for every run;
  // a point on k nodes uses nodes 0..k-1.
  std::optional<Fleet> fleet;
  if (max_nodes > 1) {
    auto f = StartFleet(checked[0].config, max_nodes, NewRunId(), signals);
    if (!f.ok()) {
      PrintError(std::string(f.status().message()));
      return absl::IsInvalidArgument(f.status()) ? 2 : 1;
    }
    fleet = std::move(*f);
  }
  // Points on one node serve no node agents, but a probe still asks.
  std::unique_ptr<HealthServer> health;
  if (!fleet && checked[0].config.control.coordinator_health_port > 0) {
    auto h =
        HealthServer::Start(checked[0].config.control.coordinator_health_port,
                            "control.coordinator_health_port");
    if (!h.ok()) return BadInput(std::string(h.status().message()));
    health = std::move(*h);
  }

  // One in-process node for the whole sweep, as a fleet's node agents
  // serve every run of theirs: its storage (connection pools, credentials)
  // stays warm from one run to the next.
  std::unique_ptr<LocalNodeClient> local;
  int failed = 0, done_before = 0;
  std::string interrupted;
  for (size_t i = 0; i < runs.size(); ++i) {
    const SweepRun& run = runs[i];
    const std::string run_dir = (fs::path(dir) / run.name).string();
    if (fs::exists(fs::path(run_dir) / "result.json")) {
      if (FinishedOk(run_dir)) {
        ++done_before;
        continue;
      }
      // A failed run is run again; its result is kept beside.
      std::error_code ec;
      fs::rename(fs::path(run_dir) / "result.json",
                 fs::path(run_dir) / "result.failed.json", ec);
    }
    if (interrupted = signals.Received(); !interrupted.empty()) break;
    LOG_INFO("sweep run %d/%zu: %s", run.index + 1, runs.size(), run.name);
    RunSetup setup;
    SweepInfo& info = setup.result.sweep;
    info = {experiment->name, run.index,      static_cast<int>(runs.size()),
            run.name,         run.point_name, run.repeat,
            run.values};
    if (PrepareRun(checked[i].options, run_dir, &setup) != 0) {
      ++failed;
      continue;
    }
    const Config& config = setup.loaded.config;
    if (!local) {
      local = std::make_unique<LocalNodeClient>(0, HostName(),
                                                config.run.progress_interval);
    }
    local->set_progress_interval(config.run.progress_interval);
    std::vector<NodeClient*> clients = {local.get()};
    if (fleet) {
      const size_t k = static_cast<size_t>(config.cluster.num_nodes);
      clients.assign(fleet->nodes.begin(), fleet->nodes.begin() + k);
      setup.result.clocks.assign(fleet->clocks.begin(),
                                 fleet->clocks.begin() + k);
    }
    std::unique_ptr<ProgressPrinter> progress;
    if (!args.quiet) {
      progress = std::make_unique<ProgressPrinter>(config.run.progress_interval,
                                                   isatty(STDERR_FILENO) != 0);
      progress->SetContext(
          absl::StrFormat("[run %d/%zu %s]", run.index + 1, runs.size(),
                          run.point_name.empty() ? run.name : run.point_name));
    }
    Coordinator coordinator(config, setup.plan, clients, progress.get());
    int code = ExecuteRun(run_dir, coordinator, signals, &setup.result);
    if (interrupted = signals.Received(); !interrupted.empty()) {
      std::error_code ec;
      fs::rename(fs::path(run_dir) / "result.json",
                 fs::path(run_dir) / "result.interrupted.json", ec);
      break;
    }
    if (code != 0) ++failed;
  }

  // The signal that stopped the sweep is taken (the collated outputs are
  // still written); another one ends the process at once.
  signals.Take();
  signals.Watch([](const std::string& name) {
    PrintError(absl::StrCat(name, ": exiting before the sweep's outputs"));
    std::fflush(nullptr);
    _exit(1);
  });
  if (fleet) {
    fleet->server->Shutdown(failed == 0 && interrupted.empty(),
                            interrupted.empty() ? "" : "sweep interrupted");
  }
  auto data = LoadSweepDir(dir);
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
      experiment->name.c_str(), finished, runs.size(), finished - done_before,
      done_before, failed, dir.c_str());
  std::fflush(stdout);
  if (!interrupted.empty()) {
    std::fprintf(stderr,
                 "ckptbench: sweep interrupted by %s; finish it with: "
                 "ckptbench sweep %s ... --results-dir %s --resume\n",
                 interrupted.c_str(), args.positional[0].c_str(), dir.c_str());
    return 1;
  }
  return failed == 0 && wrote.ok() ? 0 : 1;
}

}  // namespace ckpt
