#include "report/collate.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/files.h"
#include "coordinator/result_json_parts.h"

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

std::string CsvNumber(double v) { return absl::StrFormat("%.6g", v); }

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
      const RunResult& res = run.result;
      r["result"] = run.name + "/result.json";
      r["run_id"] = res.run_id;
      r["errors"] = res.errors;
      r["plan"] = PlanJson(res);
      r["storage"] = res.environment.storage_kind;
      r["summary"] = {{"save", SummaryJson(res.Summarize(Phase::kSave))},
                      {"load", SummaryJson(res.Summarize(Phase::kLoad))}};
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
    const RunResult& res = run.result;
    if (run.has_result) {
      cells.push_back(CsvField(res.model));
      for (uint64_t v :
           {res.checkpoint_bytes, static_cast<uint64_t>(res.world_size),
            static_cast<uint64_t>(res.num_nodes),
            static_cast<uint64_t>(res.ranks_per_node),
            static_cast<uint64_t>(res.thread_count)}) {
        cells.push_back(std::to_string(v));
      }
    } else {
      cells.insert(cells.end(), 6, "");
    }
    cells.push_back(CsvField(res.environment.storage_kind));
    const PhaseSummary phases[] = {res.Summarize(Phase::kSave),
                                   res.Summarize(Phase::kLoad)};
    for (const PhaseSummary& s : phases) {
      cells.push_back(std::to_string(s.count));
      for (const Spread* a : {&s.seconds, &s.mib_s}) {
        for (double v : {a->mean, a->stdev, a->min, a->max}) {
          cells.push_back(CsvNumber(v));
        }
      }
    }
    cells.push_back(CsvField(absl::StrJoin(res.errors, "; ")));
    for (const PhaseSummary& s : phases) {
      cells.push_back(run.has_result ? CsvNumber(s.total_mib_s) : "");
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
