#include "report/sweep_data.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/files.h"
#include "common/names.h"
#include "common/text.h"
#include "coordinator/json_codec.h"
#include "coordinator/summary_parts.h"

namespace ckpt {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
namespace fs = std::filesystem;

// A result of thousands of files and rounds is tens of MiB: 1 GiB is far
// past any, and a FIFO or device is refused without blocking.
constexpr uint64_t kMaxJsonBytes = 1ull << 30;

absl::StatusOr<json> ReadJson(const fs::path& path) {
  auto text = ReadRegularFile(path.string(), kMaxJsonBytes, "results file");
  if (!text.ok()) return text.status();
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path.string(), ": not a JSON object"));
  }
  return j;
}

absl::Status Expect(bool ok, const fs::path& path, const std::string& what) {
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(path.string(), ": expected ", what));
}

// The run's result.json, typed: absent or not JSON reads as "missing"; a
// field of the wrong type is an error naming the file and the field.
absl::Status ReadResult(const fs::path& file, const WorkloadRegistry& registry,
                        LoadedRun* run) {
  run->status = "missing";
  if (!fs::exists(file)) return absl::OkStatus();
  auto text = ReadRegularFile(file.string(), kMaxJsonBytes, "results file");
  if (!text.ok()) return absl::OkStatus();
  auto result = ResultFromJson(*text, file.string(), registry);
  if (absl::IsDataLoss(result.status())) return absl::OkStatus();
  if (!result.ok()) return result.status();
  run->has_result = true;
  run->result = std::move(*result);
  run->status = Name(run->result.status);
  return absl::OkStatus();
}

}  // namespace

ordered_json SweepManifest(const Experiment& e,
                           const std::vector<std::string>& overrides,
                           const std::vector<SweepRun>& runs) {
  ordered_json j;
  j["schema"] = kSweepSchema;
  j["name"] = e.name;
  j["description"] = e.description;
  j["file"] = e.path;
  j["overrides"] = overrides;
  j["repeat"] = e.repeat;
  ordered_json params = ordered_json::array();
  for (const auto& p : e.params) {
    params.push_back({{"name", p.name},
                      {"key", p.canonical},
                      {"group", p.group},
                      {"values", p.values},
                      {"where", p.where}});
  }
  j["params"] = params;
  ordered_json list = ordered_json::array();
  for (const auto& r : runs) {
    ordered_json values = ordered_json::object();
    for (const auto& [k, v] : r.values) values[k] = v;
    list.push_back({{"index", r.index},
                    {"name", r.name},
                    {"point", r.point},
                    {"point_name", r.point_name},
                    {"repeat", r.repeat},
                    {"values", values}});
  }
  j["runs"] = list;
  return j;
}

absl::StatusOr<SweepData> LoadSweepDir(const std::string& dir,
                                       const WorkloadRegistry& registry) {
  SweepData d;
  d.dir = dir;
  fs::path manifest = fs::path(dir) / "sweep.json";
  if (!fs::exists(manifest)) {
    fs::path result = fs::path(dir) / "result.json";
    if (!fs::exists(result)) {
      return absl::NotFoundError(absl::StrCat(
          dir,
          ": expected a sweep directory (sweep.json) or a run directory "
          "(result.json), found neither"));
    }
    d.name = fs::path(dir).filename().string();
    LoadedRun run;
    run.name = ".";
    if (auto s = ReadResult(result, registry, &run); !s.ok()) return s;
    if (!run.has_result) {
      return absl::InvalidArgumentError(
          absl::StrCat(result.string(), ": not a JSON object"));
    }
    d.runs.push_back(std::move(run));
    return d;
  }
  auto m = ReadJson(manifest);
  if (!m.ok()) return m.status();
  const json& j = *m;
  if (auto s = Expect(j.value("schema", "") == kSweepSchema, manifest,
                      absl::StrCat("schema ", kSweepSchema));
      !s.ok()) {
    return s;
  }
  if (auto s = Expect(j.contains("runs") && j["runs"].is_array(), manifest,
                      "a runs list");
      !s.ok()) {
    return s;
  }
  d.is_sweep = true;
  d.name = j.value("name", "");
  d.description = j.value("description", "");
  d.file = j.value("file", "");
  d.repeat = j.value("repeat", 1);
  std::vector<std::string> all_params;  // in sweep order
  for (const auto& p : JsonAt(j, "params")) {
    all_params.push_back(p.value("name", ""));
    if (JsonAt(p, "values").size() > 1)
      d.param_names.push_back(all_params.back());
  }
  for (const auto& r : j["runs"]) {
    LoadedRun run;
    run.index = r.value("index", 0);
    run.name = r.value("name", "");
    run.point_name = r.value("point_name", "");
    run.repeat = r.value("repeat", 1);
    const json& values = JsonAt(r, "values");
    for (const auto& name : all_params) {
      if (values.contains(name) && values[name].is_string()) {
        run.values.emplace_back(name, values[name].get<std::string>());
      }
    }
    if (run.name.empty() || IsDotName(run.name) ||
        run.name.find('/') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          manifest.string(), ": run ", run.index, ": expected a name"));
    }
    if (auto s = ReadResult(fs::path(dir) / run.name / "result.json", registry,
                            &run);
        !s.ok()) {
      return s;
    }
    d.runs.push_back(std::move(run));
  }
  return d;
}

const json& JsonAt(const json& j, const char* key) {
  static const json kEmpty = json::object();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? kEmpty : *it;
}

std::string SweepPointsTable(const SweepData& data,
                             const WorkloadRegistry& registry) {
  std::string out =
      absl::StrFormat("\n%-40s %5s %14s %14s %14s %14s\n", "point", "runs",
                      "save MiB/s", "round stdev", "load MiB/s", "round stdev");
  for (const auto& p : ByPoint(data)) {
    const Spread save = p.save.mib_s(), load = p.load.mib_s();
    absl::StrAppendFormat(&out, "%-40s %5d %14.1f %14.1f %14.1f %14.1f\n",
                          EscapeForTerminal(p.point_name), p.runs.size(),
                          p.save.total_mib_s(), save.stdev,
                          p.load.total_mib_s(), load.stdev);
  }
  out +=
      "MiB/s: the point's timed rounds' bytes over their summed time; round "
      "stdev: of single rounds' MiB/s\n";
  // Each workload's own table of the points, after it.
  const ReportInput input = ReportInputOf(data);
  registry.ForEachSummary([&](const WorkloadSummary& s) {
    if (s.sweep_table) out += s.sweep_table(input);
  });
  return out;
}

ReportInput ReportInputOf(const SweepData& data) {
  ReportInput input;
  input.all_runs = data.runs.size();
  input.is_sweep = data.is_sweep;
  input.swept = data.param_names;
  for (const LoadedRun& run : data.runs) {
    if (!run.has_result) continue;
    input.runs.push_back(
        {RunLabel(data, run), &run.result, run.point_name, run.values});
  }
  return input;
}

std::vector<PointStats> ByPoint(const SweepData& data) {
  std::vector<PointStats> points;
  std::map<std::string, size_t> at;
  for (const auto& run : data.runs) {
    auto [it, fresh] = at.emplace(run.point_name, points.size());
    if (fresh) {
      PointStats p;
      p.point_name = run.point_name.empty() ? "(all)" : run.point_name;
      p.values = run.values;
      points.push_back(std::move(p));
    }
    PointStats& p = points[it->second];
    if (!run.has_result) continue;
    p.runs.push_back(&run);
    for (const Phase phase : {Phase::kSave, Phase::kLoad}) {
      PhaseStats& ps = phase == Phase::kSave ? p.save : p.load;
      std::vector<double> rates;
      uint64_t bytes = 0;
      double seconds = 0;
      for (const RoundResult& round : run.result.rounds) {
        if (round.phase != phase || round.staged ||
            round.status != RunStatus::kOk) {
          continue;
        }
        ps.round_seconds.push_back(round.seconds);
        ps.round_mib_s.push_back(round.throughput_mib_s);
        rates.push_back(round.throughput_mib_s);
        bytes += round.bytes;
        seconds += round.seconds;
      }
      if (!rates.empty()) {
        ps.run_mean_mib_s.push_back(SpreadOf(rates).mean);
        ps.run_mib_s.push_back(MibPerSecond(bytes, seconds));
        ps.bytes += bytes;
        ps.total_seconds += seconds;
      }
    }
  }
  return points;
}

double PhaseStats::total_mib_s() const {
  return MibPerSecond(bytes, total_seconds);
}

}  // namespace ckpt
