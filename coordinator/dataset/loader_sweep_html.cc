#include "coordinator/dataset/loader_sweep_html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/dataset/dataset_results.h"
#include "report/draw/report_format.h"
#include "report/draw/svg.h"

namespace ckpt {
namespace {

// One point's cold epochs over its repeats.
struct Cell {
  double rate = 0, util = 0, step_sd_ms = 0;
  int epochs = 0;
};

// The first (cold) epoch of a run.
const EpochResult* ColdEpoch(const ReportRun& run) {
  for (const RoundResult& r : run.result->rounds) {
    const EpochResult* e = EpochOf(r);
    if (e != nullptr && !e->warm) return e;
  }
  return nullptr;
}

// A step's standard deviation over the epoch: the windows' variances,
// weighted by their steps, pooled with their means' spread.
double StepSdMs(const EpochResult& e) {
  double n = 0, mean = 0;
  for (const auto& w : e.windows) {
    n += static_cast<double>(w.steps);
    mean += static_cast<double>(w.steps) * w.mean_seconds;
  }
  if (n == 0) return 0;
  mean /= n;
  double var = 0;
  for (const auto& w : e.windows) {
    const double d = w.mean_seconds - mean;
    var += static_cast<double>(w.steps) * (w.variance + d * d);
  }
  return 1e3 * std::sqrt(var / n);
}

}  // namespace

std::vector<LoaderPoint> LoaderPoints(const ReportInput& input) {
  std::vector<LoaderPoint> out;
  for (const ReportRun& run : input.runs) {
    const EpochResult* e = ColdEpoch(run);
    if (e == nullptr) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const LoaderPoint& p) {
      return p.point_name == run.point_name;
    });
    if (it == out.end()) {
      out.push_back({run.point_name, 0, 0, 0, 0, false});
      it = out.end() - 1;
    }
    ++it->epochs;
    it->samples_per_second += e->samples_per_second;
    it->utilization += e->utilization;
    it->step_sd_ms += StepSdMs(*e);
    it->compute = it->compute || e->compute_seconds > 0;
  }
  for (LoaderPoint& p : out) {
    p.samples_per_second /= p.epochs;
    p.utilization /= p.epochs;
    p.step_sd_ms /= p.epochs;
  }
  return out;
}

std::string LoaderSweepSection(const ReportInput& input) {
  if (!input.is_sweep || input.swept.empty()) return "";
  const std::string& x_name = input.swept.back();
  // Categories (x) and series (the other swept values) in the order the
  // sweep ran them.
  std::vector<std::string> xs, series;
  std::map<std::pair<std::string, std::string>, Cell> cells;
  bool any_compute = false;
  for (const ReportRun& run : input.runs) {
    const EpochResult* e = ColdEpoch(run);
    if (e == nullptr) continue;
    std::string x;
    std::vector<std::string> others;
    for (const auto& [k, v] : run.values) {
      if (k == x_name) {
        x = v;
      } else if (std::find(input.swept.begin(), input.swept.end(), k) !=
                 input.swept.end()) {
        others.push_back(absl::StrCat(k, "=", v));
      }
    }
    const std::string s = others.empty() ? "all" : absl::StrJoin(others, ",");
    if (std::find(xs.begin(), xs.end(), x) == xs.end()) xs.push_back(x);
    if (std::find(series.begin(), series.end(), s) == series.end()) {
      series.push_back(s);
    }
    Cell& c = cells[{s, x}];
    c.rate += e->samples_per_second;
    c.util += 100 * e->utilization;
    c.step_sd_ms += StepSdMs(*e);
    ++c.epochs;
    any_compute = any_compute || e->compute_seconds > 0;
  }
  if (cells.empty()) return "";
  std::vector<BarSeries> rate, util, sd;
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < series.size(); ++i) {
    const std::string color = SeriesColor(i);
    rate.push_back({series[i], color, {}, {}, {}, {}});
    util.push_back({series[i], color, {}, {}, {}, {}});
    sd.push_back({series[i], color, {}, {}, {}, {}});
    for (const std::string& x : xs) {
      auto it = cells.find({series[i], x});
      Cell c;
      if (it != cells.end() && it->second.epochs > 0) {
        const double n = it->second.epochs;
        c = {it->second.rate / n, it->second.util / n,
             it->second.step_sd_ms / n, it->second.epochs};
        rows.push_back({series[i], x, std::to_string(c.epochs),
                        Fixed(c.rate, 0), any_compute ? Fixed(c.util, 1) : "-",
                        Fixed(c.step_sd_ms, 3)});
      }
      rate.back().values.push_back(c.rate);
      util.back().values.push_back(c.util);
      sd.back().values.push_back(c.step_sd_ms);
    }
  }
  std::string out =
      "<h2>Data loader across the sweep</h2>\n<p>Each point's cold epoch, "
      "the mean over its repeats, against the last swept parameter (" +
      HtmlEscape(x_name) +
      "), a series for each value of the others (e.g. the storage kind or "
      "the loader's kind). Step time: a step's standard deviation over the "
      "epoch (wait plus compute).</p>\n";
  out += BarChart(absl::StrCat("samples/s against ", x_name), "samples/s", xs,
                  rate);
  out += BarChart(absl::StrCat("accelerator utilization against ", x_name), "%",
                  xs, util, BarRule{kMlperfLine, "MLPerf Storage: 90%"});
  out += BarChart(absl::StrCat("step-time standard deviation against ", x_name),
                  "ms", xs, sd);
  out += HtmlTable(
      {"series", x_name, "epochs", "samples/s", "utilization %", "step sd ms"},
      rows);
  return out;
}

}  // namespace ckpt
