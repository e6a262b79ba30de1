#include "report/collate.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/files.h"

namespace ckpt {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json SpreadJson(const Spread& s) {
  return {{"mean", s.mean}, {"stdev", s.stdev}, {"min", s.min}, {"max", s.max}};
}

ordered_json PhaseJson(const PhaseStats& p) {
  return {{"rounds", p.round_seconds.size()},
          {"seconds", SpreadJson(p.seconds())},
          {"throughput_mib_s", SpreadJson(p.mib_s())},
          {"run_mean_throughput_mib_s", p.run_mean_mib_s},
          {"bytes", p.bytes},
          {"total_seconds", p.total_seconds},
          {"total_throughput_mib_s", p.total_mib_s()},
          {"run_throughput_mib_s", p.run_mib_s}};
}

ordered_json ValuesJson(
    const std::vector<std::pair<std::string, std::string>>& values) {
  ordered_json j = ordered_json::object();
  for (const auto& [k, v] : values) j[k] = v;
  return j;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Num(double v) { return absl::StrFormat("%.6g", v); }

// The phase summary a run's result.json carries.
const json& RunPhase(const LoadedRun& run, const char* phase) {
  static const json kEmpty = json::object();
  if (!run.has_result || !run.result.contains("summary")) return kEmpty;
  const json& s = run.result["summary"];
  return s.contains(phase) ? s[phase] : kEmpty;
}

double Get(const json& j, const char* a, const char* b) {
  if (!j.contains(a) || !j[a].contains(b)) return 0;
  return j[a][b].get<double>();
}

}  // namespace

std::string CollatedJson(const SweepData& data) {
  ordered_json j;
  j["schema"] = kCollatedSchema;
  j["name"] = data.name;
  j["description"] = data.description;
  j["file"] = data.file;
  j["repeat"] = data.repeat;
  j["params"] = data.param_names;
  ordered_json runs = ordered_json::array();
  for (const auto& run : data.runs) {
    ordered_json r;
    r["index"] = run.index;
    r["name"] = run.name;
    r["point_name"] = run.point_name;
    r["repeat"] = run.repeat;
    r["values"] = ValuesJson(run.values);
    r["status"] = run.status;
    if (run.has_result) {
      const json& res = run.result;
      r["result"] = run.name + "/result.json";
      r["run_id"] = res.value("run_id", "");
      r["errors"] = JsonAt(res, "errors");
      r["plan"] = JsonAt(res, "plan");
      r["storage"] = JsonAt(res, "environment").value("storage", "");
      r["summary"] = JsonAt(res, "summary");
    }
    runs.push_back(r);
  }
  j["runs"] = runs;
  ordered_json points = ordered_json::array();
  for (const auto& p : ByPoint(data)) {
    points.push_back({{"point_name", p.point_name},
                      {"values", ValuesJson(p.values)},
                      {"runs", p.runs.size()},
                      {"save", PhaseJson(p.save)},
                      {"load", PhaseJson(p.load)}});
  }
  j["points"] = points;
  return j.dump(2) + "\n";
}

std::string ResultsCsv(const SweepData& data) {
  std::vector<std::string> header = {"index", "run", "point", "repeat"};
  for (const auto& p : data.param_names) header.push_back(p);
  for (const char* h :
       {"status", "model", "checkpoint_bytes", "world_size", "num_nodes",
        "ranks_per_node", "thread_count", "storage"}) {
    header.push_back(h);
  }
  for (const char* phase : {"save", "load"}) {
    for (const char* h :
         {"rounds", "mean_s", "stdev_s", "min_s", "max_s", "mean_mib_s",
          "stdev_mib_s", "min_mib_s", "max_mib_s"}) {
      header.push_back(absl::StrCat(phase, "_", h));
    }
  }
  header.push_back("errors");
  // Added after the first columns were published: last, so no column
  // moves for a reader that counts them.
  header.push_back("save_total_mib_s");
  header.push_back("load_total_mib_s");
  std::string out;
  std::vector<std::string> cells;
  for (const auto& h : header) cells.push_back(CsvField(h));
  absl::StrAppend(&out, absl::StrJoin(cells, ","), "\n");
  for (const auto& run : data.runs) {
    cells = {std::to_string(run.index), CsvField(run.name),
             CsvField(run.point_name), std::to_string(run.repeat)};
    for (const auto& name : data.param_names) {
      std::string v;
      for (const auto& [k, value] : run.values) {
        if (k == name) v = value;
      }
      cells.push_back(CsvField(v));
    }
    cells.push_back(run.status);
    json plan = run.has_result ? JsonAt(run.result, "plan") : json::object();
    cells.push_back(CsvField(plan.value("model", "")));
    for (const char* k : {"checkpoint_bytes", "world_size", "num_nodes",
                          "ranks_per_node", "thread_count"}) {
      cells.push_back(plan.contains(k) ? plan[k].dump() : "");
    }
    cells.push_back(CsvField(
        run.has_result ? JsonAt(run.result, "environment").value("storage", "")
                       : ""));
    for (const char* phase : {"save", "load"}) {
      const json& s = RunPhase(run, phase);
      cells.push_back(std::to_string(s.value("count", 0)));
      for (const char* a : {"seconds", "throughput_mib_s"}) {
        for (const char* b : {"mean", "stdev", "min", "max"}) {
          cells.push_back(Num(Get(s, a, b)));
        }
      }
    }
    std::vector<std::string> errors;
    if (run.has_result) {
      for (const auto& e : JsonAt(run.result, "errors")) {
        errors.push_back(e.get<std::string>());
      }
    }
    cells.push_back(CsvField(absl::StrJoin(errors, "; ")));
    for (const char* phase : {"save", "load"}) {
      const json& s = RunPhase(run, phase);
      cells.push_back(s.contains("total_throughput_mib_s") &&
                              s["total_throughput_mib_s"].is_number()
                          ? Num(s["total_throughput_mib_s"].get<double>())
                          : "");
    }
    absl::StrAppend(&out, absl::StrJoin(cells, ","), "\n");
  }
  return out;
}

absl::Status WriteCollated(const SweepData& data) {
  std::filesystem::path dir(data.dir);
  if (auto s = WriteFileAtomically((dir / "collated_results.json").string(),
                                   CollatedJson(data));
      !s.ok()) {
    return s;
  }
  return WriteFileAtomically((dir / "results.csv").string(), ResultsCsv(data));
}

}  // namespace ckpt
