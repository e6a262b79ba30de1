// A sweep directory on disk, read back for collation, reports and
// comparisons: DIR/sweep.json (schema ckptbench.sweep/v1, the manifest the
// sweep writes before its first run) and each run's DIR/<run>/result.json.
// A plain run directory (DIR/result.json only) reads as a one-run sweep.
// Also the per-point statistics every output shares. Thread-compatible.
#ifndef CKPTBENCH_REPORT_SWEEP_DATA_H_
#define CKPTBENCH_REPORT_SWEEP_DATA_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/experiment.h"
#include "common/histogram.h"
#include "common/stats.h"
#include "coordinator/report_parts.h"
#include "coordinator/results.h"
#include "coordinator/workload_registry.h"

namespace ckpt {

inline constexpr char kSweepSchema[] = "ckptbench.sweep/v1";
inline constexpr char kCollatedSchema[] = "ckptbench.collated/v1";

// The manifest: what the sweep will run, written before any run so a
// resumed sweep can check it is the same sweep.
nlohmann::ordered_json SweepManifest(const Experiment& experiment,
                                     const std::vector<std::string>& overrides,
                                     const std::vector<SweepRun>& runs);

struct LoadedRun {
  int index = 0;
  std::string name;        // directory name under the sweep
  std::string point_name;  // "" for a point with nothing swept
  int repeat = 1;
  std::vector<std::pair<std::string, std::string>> values;
  bool has_result = false;
  RunResult result;    // result.json read back (ResultFromJson)
  std::string status;  // result status, or "missing"
};

struct SweepData {
  std::string dir;
  bool is_sweep = false;  // false: a single run directory
  std::string name, description, file;
  int repeat = 1;
  std::vector<std::string> param_names;  // swept (more than one value)
  std::vector<LoadedRun> runs;
};

// A result.json that is not JSON (or absent) reads as a run whose status
// is "missing"; one with a field of the wrong type fails the load, naming
// the file and the field.
// Results are read with `registry`'s workloads (ResultFromJson).
absl::StatusOr<SweepData> LoadSweepDir(
    const std::string& dir,
    const WorkloadRegistry& registry = WorkloadRegistry::BuiltIn());

// How the report names a run: its directory, or the sweep's name for a
// plain run directory (".").
inline std::string RunLabel(const SweepData& data, const LoadedRun& run) {
  return run.name == "." ? data.name : run.name;
}

// What a workload's report part is given (coordinator/report_parts.h):
// the runs with a result, each by its label, and what the sweep swept.
ReportInput ReportInputOf(const SweepData& data);

// The points' table at the end of `ckptbench sweep`: each point's save and
// load MiB/s and their rounds' spread, then each workload's own table of
// the points (WorkloadSummary::sweep_table) that `registry` holds. Point
// names, read from sweep.json, are escaped for the terminal.
std::string SweepPointsTable(
    const SweepData& data,
    const WorkloadRegistry& registry = WorkloadRegistry::BuiltIn());

// j[key] by reference, or an empty object (an empty range whose value()
// gives defaults) when j has no such key: safe to iterate, unlike
// j.value(key, default), which is a temporary. (sweep.json)
const nlohmann::json& JsonAt(const nlohmann::json& j, const char* key);

// One phase of one point across its repeats.
// A rate is bytes over time summed over rounds (total_mib_s, run_mib_s);
// the per-round rates are a distribution (mib_s: its spread).
struct PhaseStats {
  std::vector<double> round_seconds, round_mib_s;  // every timed round
  std::vector<double> run_mean_mib_s;  // one per repeat: its rounds' mean
  std::vector<double> run_mib_s;       // one per repeat: bytes / time
  uint64_t bytes = 0;                  // every timed round's
  double total_seconds = 0;
  Spread seconds() const { return SpreadOf(round_seconds); }
  Spread mib_s() const { return SpreadOf(round_mib_s); }
  double total_mib_s() const;
};

struct PointStats {
  std::string point_name;  // "(all)" where nothing is swept
  std::vector<std::pair<std::string, std::string>> values;
  std::vector<const LoadedRun*> runs;
  PhaseStats save, load;
  const PhaseStats& phase(Phase p) const {
    return p == Phase::kSave ? save : load;
  }
};

// Points in sweep order, each with the timed rounds of its finished runs.
std::vector<PointStats> ByPoint(const SweepData& data);

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_SWEEP_DATA_H_
