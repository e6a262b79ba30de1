#include "report/html_report.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/files.h"
#include "coordinator/result_foreign.h"
#include "coordinator/results.h"
#include "report/collate.h"
#include "report/draw/report_format.h"
#include "report/draw/svg.h"
#include "report/straggler_section.h"

namespace ckpt {
namespace {

constexpr size_t kMaxTimelines = 24;
const Phase kPhases[] = {Phase::kSave, Phase::kLoad};

std::string PhaseTitle(Phase p) { return p == Phase::kSave ? "Save" : "Load"; }
std::string PhaseColor(Phase p) {
  return SeriesColor(p == Phase::kSave ? 0 : 1);
}
// A point's label on a chart: its swept values alone ("1, 2"); the
// parameters' names are said once above the charts.
std::string ShortName(const SweepData& data, const PointStats& p) {
  std::vector<std::string> values;
  for (const auto& name : data.param_names) {
    for (const auto& [k, v] : p.values) {
      if (k == name) values.push_back(v);
    }
  }
  return values.empty() ? p.point_name : absl::StrJoin(values, ", ");
}

// Throughput and time per point, save and load side by side.
std::string PointsSection(const SweepData& data,
                          const std::vector<PointStats>& points) {
  std::vector<std::string> names;
  for (const auto& p : points) names.push_back(ShortName(data, p));
  std::string s =
      "<h2>Per point</h2>\n<p>Throughput bars: all the point's timed "
      "rounds' bytes over their summed time (not a mean of round rates); "
      "time bars: the mean round; whiskers: single rounds' min to max; "
      "dots: each repeat's bytes over its time.";
  if (!data.param_names.empty()) {
    absl::StrAppend(&s, " Points are labelled by their values of ",
                    HtmlEscape(absl::StrJoin(data.param_names, ", ")), ".");
  }
  s += "</p>\n";
  for (bool rate : {true, false}) {
    std::vector<BarSeries> series;
    for (const Phase phase : kPhases) {
      BarSeries b{PhaseTitle(phase), PhaseColor(phase), {}, {}, {}, {}};
      bool any = false;
      for (const auto& p : points) {
        const PhaseStats& ps = p.phase(phase);
        Spread sp = rate ? ps.mib_s() : ps.seconds();
        any |= sp.count > 0;
        // A rate bar is bytes over time; its whisker, single rounds' range.
        b.values.push_back(rate ? ps.total_mib_s() : sp.mean);
        b.low.push_back(sp.min);
        b.high.push_back(sp.max);
        std::vector<double> dots;
        if (rate) dots = ps.run_mib_s;
        b.dots.push_back(dots);
      }
      if (any) series.push_back(std::move(b));
    }
    s += BarChart(
        rate ? "Throughput per point" : "Time per checkpoint per point",
        rate ? "MiB/s" : "seconds", names, series);
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : points) {
    for (const Phase phase : kPhases) {
      const PhaseStats& ps = p.phase(phase);
      if (ps.round_seconds.empty()) continue;
      Spread r = ps.mib_s(), t = ps.seconds();
      rows.push_back({p.point_name, std::string(Name(phase)),
                      std::to_string(p.runs.size()), std::to_string(r.count),
                      Fixed(ps.total_mib_s(), 1), Fixed(r.stdev, 1),
                      Fixed(r.min, 1), Fixed(r.max, 1), Fixed(t.mean, 3),
                      Fixed(t.stdev, 3), Fixed(t.min, 3), Fixed(t.max, 3)});
    }
  }
  s += HtmlTable({"point", "phase", "runs", "rounds", "MiB/s (bytes / time)",
                  "round stdev MiB/s", "round min MiB/s", "round max MiB/s",
                  "mean s", "stdev s", "min s", "max s"},
                 rows);
  return s;
}

// The slowest timed round of each phase, node by node.
std::string SlowestSection(const SweepData& data) {
  std::string s = "<h2>Slowest rounds, per node</h2>\n";
  for (const Phase phase : kPhases) {
    const RoundResult* slowest = nullptr;
    const LoadedRun* owner = nullptr;
    for (const auto& run : data.runs) {
      if (!run.has_result) continue;
      for (const RoundResult& round : run.result.rounds) {
        if (round.phase != phase || round.staged ||
            round.status != RunStatus::kOk) {
          continue;
        }
        if (!slowest || round.seconds > slowest->seconds) {
          slowest = &round;
          owner = &run;
        }
      }
    }
    if (slowest == nullptr) continue;
    std::string title = absl::StrFormat(
        "Slowest %s round: run %s, %s %d (%.3f s)", Name(phase), owner->name,
        Name(phase), slowest->index, slowest->seconds);
    std::vector<std::string> names;
    BarSeries b{"node seconds", PhaseColor(phase), {}, {}, {}, {}};
    std::vector<std::vector<std::string>> rows;
    for (const NodeResult& n : slowest->nodes) {
      names.push_back(absl::StrCat("node ", n.node));
      b.values.push_back(n.seconds);
      rows.push_back(
          {std::to_string(n.node), n.host, Fixed(n.seconds, 3),
           Fixed(n.throughput_mib_s, 1), Fixed(n.start_lag_seconds * 1e3, 3),
           Fixed(n.first_done_seconds, 3), Fixed(n.last_done_seconds, 3),
           std::to_string(n.retries)});
    }
    s += BarChart(title, "seconds", names, {b});
    s += HtmlTable({"node", "host", "seconds", "MiB/s", "start lag ms",
                    "first rank done s", "last rank done s", "retries"},
                   rows);
  }
  return s;
}

double Ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

// Every operation any timed round of the points measured.
std::set<std::string> OpsIn(const std::vector<PointStats>& points) {
  std::set<std::string> ops;
  for (const auto& p : points) {
    for (const LoadedRun* run : p.runs) {
      for (const RoundResult& round : run->result.rounds) {
        for (const auto& [op, h] : round.ops) {
          if (h.count() > 0) ops.insert(op);
        }
        for (const auto& [op, h] : round.ops_without_buckets) {
          if (h.count > 0) ops.insert(op);
        }
      }
    }
  }
  return ops;
}

// One point's latency of one operation: min, p50, p90, p99, max in ms.
struct PointLatency {
  std::vector<double> values;
  bool all_buckets = true;  // else the median of its rounds' percentiles
  uint64_t count = 0;       // operations merged (all_buckets)
};

// Of the merged histogram of the point's timed rounds; nullopt when none
// measured `op`.
std::optional<PointLatency> LatencyOf(const PointStats& p,
                                      const std::string& op) {
  PointLatency out;
  Histogram merged;
  // Fallback only: per-round percentiles (min, p50, p90, p99, max).
  std::vector<std::vector<double>> per_round(5);
  for (const LoadedRun* run : p.runs) {
    for (const RoundResult& round : run->result.rounds) {
      if (round.staged) continue;
      auto h = round.ops.find(op);
      if (h != round.ops.end() && h->second.count() > 0) {
        merged.Merge(h->second);
        const Histogram& m = h->second;
        const double values[] = {Ms(m.min()), Ms(m.Percentile(0.50)),
                                 Ms(m.Percentile(0.90)), Ms(m.Percentile(0.99)),
                                 Ms(m.max())};
        for (size_t f = 0; f < 5; ++f) per_round[f].push_back(values[f]);
      }
      auto old = round.ops_without_buckets.find(op);
      if (old != round.ops_without_buckets.end() && old->second.count > 0) {
        out.all_buckets = false;
        const OpPercentiles& o = old->second;
        const double values[] = {o.min_ms, o.p50_ms, o.p90_ms, o.p99_ms,
                                 o.max_ms};
        for (size_t f = 0; f < 5; ++f) per_round[f].push_back(values[f]);
      }
    }
  }
  if (per_round[0].empty()) return std::nullopt;
  if (out.all_buckets) {
    out.count = merged.count();
    out.values.push_back(Ms(merged.min()));
    for (double q : {0.50, 0.90, 0.99}) {
      out.values.push_back(Ms(merged.Percentile(q)));
    }
    out.values.push_back(Ms(merged.max()));
  } else {
    for (auto& v : per_round) {
      std::sort(v.begin(), v.end());
      out.values.push_back(v[v.size() / 2]);
    }
  }
  return out;
}

// Per operation and point: percentiles of the point's timed rounds' merged
// histogram (from the buckets result.json carries).
std::string LatencySection(const SweepData& data,
                           const std::vector<PointStats>& points) {
  const std::vector<std::string> labels = {"min", "p50", "p90", "p99", "max"};
  std::string s =
      "<h2>Latency distributions</h2>\n<p>Per operation and point: the "
      "percentiles of one histogram, every timed round's operations merged "
      "by adding bucket counts (percentiles are never averaged). A point "
      "with rounds from before histograms were exported falls back to the "
      "median of its rounds' percentiles, marked so.</p>\n";
  for (const auto& op : OpsIn(points)) {
    std::vector<LineSeries> series;
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : points) {
      const std::optional<PointLatency> l = LatencyOf(p, op);
      if (!l) continue;
      std::vector<std::string> row = {
          p.point_name,
          l->all_buckets ? std::to_string(l->count) : "(median of rounds)"};
      for (double v : l->values) row.push_back(Fixed(v, 3));
      series.push_back(LineSeries{ShortName(data, p), l->values});
      rows.push_back(std::move(row));
    }
    if (series.empty()) continue;
    s += LogLineChart(absl::StrCat("'", op, "' latency"), "ms", labels, series);
    s += HtmlTable(
        {"point", "ops", "min ms", "p50 ms", "p90 ms", "p99 ms", "max ms"},
        rows);
  }
  return s;
}

// When each node started and finished, round by round, per run.
std::string TimelineSection(const SweepData& data,
                            const WorkloadRegistry& registry) {
  std::string s =
      "<h2>Round timelines</h2>\n<p>Per run: each round's nodes from their "
      "start (after the common start instant) to their last rank durable or "
      "verified, on the coordinator's clock (each node's start lag added); "
      "the tick marks the node's first rank done; a node at least 1.2x the "
      "median node is marked straggler (see Stragglers).</p>\n";
  size_t shown = 0, with_results = 0;
  for (const auto& run : data.runs) {
    if (!run.has_result) continue;
    ++with_results;
    if (shown == kMaxTimelines) continue;
    ++shown;
    std::vector<TimelineRow> rows;
    std::vector<std::vector<std::string>> table;
    for (const RoundResult& round : run.result.rounds) {
      const Phase phase = round.phase;
      std::string label = RoundName(round, registry);
      // The round's straggler (docs/results.md), named on its bar.
      int straggler = -1;
      if (!round.stragglers.empty() &&
          round.stragglers[0].ratio_to_median >= kStragglerRatio) {
        straggler = round.stragglers[0].node;
      }
      for (const NodeResult& n : round.nodes) {
        const double lag = n.start_lag_seconds;
        TimelineRow r;
        r.label = absl::StrCat(label, " n", n.node,
                               n.node == straggler ? " straggler" : "");
        r.start = lag;
        r.end = lag + n.seconds;
        r.mark = lag + n.first_done_seconds;
        r.color = PhaseColor(phase);
        table.push_back({label, std::to_string(n.node), Fixed(r.start * 1e3, 3),
                         Fixed(r.mark, 3), Fixed(r.end, 3)});
        rows.push_back(std::move(r));
      }
    }
    if (rows.empty()) continue;
    s += Timeline(absl::StrCat("Run ", RunLabel(data, run)),
                  "seconds since the round's common start", rows);
    s += HtmlTable({"round", "node", "start ms", "first rank done s", "end s"},
                   table);
  }
  if (with_results > shown) {
    absl::StrAppendFormat(&s,
                          "<p>%d more run(s) not drawn; their result.json "
                          "files hold the same data.</p>\n",
                          with_results - shown);
  }
  return s;
}

std::string Header(const SweepData& data, const WorkloadRegistry& registry) {
  std::string s =
      absl::StrCat("<h1>ckptbench: ", HtmlEscape(data.name), "</h1>\n");
  if (!data.description.empty()) {
    absl::StrAppend(&s, "<p>", HtmlEscape(data.description), "</p>\n");
  }
  int finished = 0, failed = 0;
  const RunResult* first = nullptr;
  for (const auto& r : data.runs) {
    if (!r.has_result) continue;
    ++finished;
    if (r.result.status != RunStatus::kOk) ++failed;
    if (!first) first = &r.result;
  }
  std::vector<std::vector<std::string>> rows = {
      {"directory", data.dir},
      {"runs", absl::StrFormat("%d of %zu finished, %d failed", finished,
                               data.runs.size(), failed)}};
  if (data.is_sweep) {
    rows.push_back({"experiment file", data.file});
    rows.push_back({"swept", data.param_names.empty()
                                 ? "(nothing)"
                                 : absl::StrJoin(data.param_names, ", ")});
    rows.push_back({"repeat", std::to_string(data.repeat)});
  }
  if (first) {
    const EnvironmentInfo& env = first->environment;
    rows.push_back({"host", absl::StrCat(env.host, " (", env.cpus, " CPUs, ",
                                         env.kernel, ")")});
    rows.push_back(
        {"storage", absl::StrCat(env.storage_kind, " ", env.filesystem, " ",
                                 env.mount_point)});
    const WorkloadSummary* part = registry.SummaryOf(first->workload);
    if (part != nullptr && part->plan_row) {
      if (auto row = part->plan_row(*first)) {
        rows.push_back({row->first, row->second});
      }
    }
    rows.push_back({"ckptbench", env.version});
  }
  s += HtmlTable({"", ""}, rows);
  std::string errors;
  for (const auto& r : data.runs) {
    if (!r.has_result || r.result.status == RunStatus::kOk) continue;
    for (const std::string& e : r.result.errors) {
      absl::StrAppend(&errors, "<li>", HtmlEscape(r.name), ": ", HtmlEscape(e),
                      "</li>");
    }
  }
  if (!errors.empty())
    absl::StrAppend(&s, "<h2>Errors</h2><ul>", errors, "</ul>\n");
  return s;
}

// What another build's result.json had that this build did not read.
std::string UnreadSection(const SweepData& data) {
  std::string s, unread;
  for (const auto& r : data.runs) {
    if (!r.has_result) continue;
    for (const std::string& line : ForeignLines(r.result)) {
      absl::StrAppend(&unread, "<li>", HtmlEscape(r.name), ": ",
                      HtmlEscape(line), "</li>");
    }
  }
  if (!unread.empty()) {
    absl::StrAppend(&s,
                    "<h2>Not read by this build</h2><p>What these runs' "
                    "result.json files hold that this build has no reader "
                    "for: their rounds' common figures (time, bytes, nodes, "
                    "latency) are below like any round's; these parts are "
                    "not.</p><ul>",
                    unread, "</ul>\n");
  }
  return s;
}

// Every round carrying a flag, with what each flag says about its number
// (client_bound: why, naming the node).
std::string FlaggedSection(const SweepData& data) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& run : data.runs) {
    if (!run.has_result) continue;
    for (const RoundResult& round : run.result.rounds) {
      if (round.flags.empty()) continue;
      const std::string& why = round.client_bound;
      rows.push_back({run.name, std::string(Name(round.phase)),
                      round.staged ? "stage" : std::to_string(round.index),
                      JoinNames(round.flags, ", "),
                      why.empty() ? "" : "client-bound: " + why});
    }
  }
  if (rows.empty()) return "";
  return absl::StrCat(
      "<h2>Flagged rounds</h2>\n<p>Rounds whose number means less than it "
      "seems (docs/results.md, <code>flags</code>): <code>client_bound</code> "
      "means ckptbench itself was the limit, so the rate is the tool's on "
      "that machine, not the storage's.</p>\n",
      HtmlTable({"run", "phase", "round", "flags", "why"}, rows));
}

constexpr char kStyle[] = R"(<style>
body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:8px 0 24px;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f2f2f2}td:first-child{text-align:left}
figure{margin:12px 0}figcaption{display:none}
svg .title{font-size:14px;font-weight:bold}svg .tick{font-size:11px}
svg .legend,svg .axis-label{font-size:12px}
svg .grid{stroke:#e4e4e4}svg .axis{stroke:#444}
svg .whisker{stroke:#222;stroke-width:1.2}svg .dot{fill:#222;opacity:.7}
svg .line{stroke-width:2}svg .mark{stroke:#000;stroke-width:2}
svg .rule{stroke:#c00;stroke-width:1.5;stroke-dasharray:6 3}
</style>
)";

// Counts the charts the browser actually laid out: <body data-charts=N
// data-charts-drawn=M>, shown at the bottom (used by the report's test).
constexpr char kSelfCheck[] = R"(<p id="self-check"></p>
<script>
(function(){var figs=document.querySelectorAll('figure.chart svg');var drawn=0;
figs.forEach(function(s){var b=s.getBBox();
if(b.width>0&&b.height>0&&s.querySelector('rect,polyline,circle'))drawn++;});
document.body.setAttribute('data-charts',String(figs.length));
document.body.setAttribute('data-charts-drawn',String(drawn));
document.getElementById('self-check').textContent=drawn+' of '+figs.length+' charts drawn';})();
</script>
)";

}  // namespace

std::string HtmlReport(const SweepData& data,
                       const WorkloadRegistry& registry) {
  std::vector<PointStats> points = ByPoint(data);
  std::string s = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>ckptbench report: ",
      HtmlEscape(data.name), "</title>\n", kStyle, "</head><body>\n");
  s += Header(data, registry);
  s += UnreadSection(data);
  s += FlaggedSection(data);
  s += PointsSection(data, points);
  s += SlowestSection(data);
  s += LatencySection(data, points);
  s += StragglerSection(data);
  const ReportInput input = ReportInputOf(data);
  // Each workload's parts at their places, in registration order.
  auto parts = [&](ReportPlace place) {
    registry.ForEachReport(
        [&](const WorkloadReport& report) { s += report.Draw(place, input); });
  };
  parts(ReportPlace::kBeforeTimeline);
  s += TimelineSection(data, registry);
  parts(ReportPlace::kAfterTimeline);
  s += kSelfCheck;
  s += "</body></html>\n";
  return s;
}

absl::Status WriteSweepOutputs(const SweepData& data,
                               const WorkloadRegistry& registry) {
  if (data.is_sweep) {
    if (auto s = WriteCollated(data); !s.ok()) return s;
  }
  return WriteHtmlReport(data, registry);
}

absl::Status WriteHtmlReport(const SweepData& data,
                             const WorkloadRegistry& registry) {
  return WriteFileAtomically(
      (std::filesystem::path(data.dir) / "report.html").string(),
      HtmlReport(data, registry));
}

}  // namespace ckpt
