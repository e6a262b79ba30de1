#include "coordinator/dataset/dataload_html.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/dataset/loader_sweep_html.h"
#include "report/draw/report_format.h"
#include "report/draw/svg.h"

namespace ckpt {
namespace {

constexpr size_t kMaxCharts = 8;    // of each kind
constexpr size_t kMaxWindows = 40;  // points on a step-time chart
struct Epoch {
  const EpochResult* e = nullptr;
  std::string label;
};

std::vector<Epoch> EpochsOf(const ReportInput& input) {
  std::vector<Epoch> out;
  for (const ReportRun& run : input.runs) {
    for (const RoundResult& round : run.result->rounds) {
      const EpochResult* e = EpochOf(round);
      if (e == nullptr) continue;
      const std::string own =
          absl::StrCat("epoch ", round.index, e->warm ? " (warm)" : " (cold)");
      out.push_back(
          {e, input.all_runs == 1 ? own : absl::StrCat(run.label, " ", own)});
    }
  }
  return out;
}

double Ms(const Histogram& h, double q) {
  return static_cast<double>(h.Percentile(q)) / 1e6;
}

std::string MsCell(const Histogram& h, double q) {
  return h.count() > 0 ? Fixed(Ms(h, q), 3) : "-";
}

std::string RateSection(const std::vector<Epoch>& epochs) {
  std::vector<std::string> categories;
  BarSeries rate{"samples/s", SeriesColor(0), {}, {}, {}, {}};
  std::vector<std::vector<std::string>> rows;
  for (const Epoch& ep : epochs) {
    const EpochResult& e = *ep.e;
    categories.push_back(ep.label);
    rate.values.push_back(e.samples_per_second);
    rows.push_back({ep.label, std::string(Name(e.access)),
                    std::to_string(e.samples), Fixed(e.samples_per_second, 0),
                    Fixed(e.mib_per_second, 1), Fixed(e.first_batch_seconds, 3),
                    std::to_string(e.dropped), std::to_string(e.padded),
                    e.each_sample_once ? "yes" : "no"});
  }
  return BarChart("Samples per second, per epoch", "samples/s", categories,
                  {rate}) +
         HtmlTable({"epoch", "access", "samples", "samples/s", "MiB/s",
                    "first batch s", "dropped", "padded", "each sample once"},
                   rows);
}

std::string UtilizationSection(const std::vector<Epoch>& epochs) {
  std::string charts;
  std::vector<std::vector<std::string>> rows;
  for (const Epoch& ep : epochs) {
    const EpochResult& e = *ep.e;
    if (e.compute_seconds <= 0) continue;
    double lowest = 1;
    std::vector<std::string> categories = {"all"};
    BarSeries util{
        "utilization %", SeriesColor(1), {100 * e.utilization}, {}, {}, {}};
    for (const EpochResult::Rank& r : e.ranks) {
      lowest = std::min(lowest, r.utilization);
      categories.push_back(absl::StrCat("rank ", r.rank));
      util.values.push_back(100 * r.utilization);
    }
    rows.push_back({ep.label, Fixed(e.compute_seconds, 4),
                    Fixed(100 * e.utilization, 1), Fixed(100 * lowest, 1),
                    100 * e.utilization >= kMlperfLine ? "yes" : "no"});
    if (rows.size() > kMaxCharts) continue;
    charts += BarChart(
        absl::StrCat(ep.label, ": accelerator utilization per rank"), "%",
        categories, {util}, BarRule{kMlperfLine, "MLPerf Storage: 90%"});
  }
  if (rows.empty()) return "";
  return "<h3>Accelerator utilization</h3>\n<p>Each rank's emulated "
         "accelerator computes dataload.compute_time per batch and waits for "
         "the next batch otherwise: utilization is compute time over its "
         "epoch time. MLPerf Storage passes a storage system for a workload "
         "while utilization stays at or above 90% (the dashed line).</p>\n" +
         charts +
         HtmlTable({"epoch", "compute s per batch", "utilization %",
                    "lowest rank %", "at or above 90%"},
                   rows);
}

std::string LatencySection(const std::vector<Epoch>& epochs) {
  const std::vector<std::string> labels = {"p50", "p90", "p99", "max"};
  const std::vector<double> qs = {0.5, 0.9, 0.99, 1.0};
  std::string charts;
  std::vector<std::vector<std::string>> rows;
  for (const Epoch& ep : epochs) {
    const EpochResult& e = *ep.e;
    std::vector<LineSeries> series;
    for (const auto& [name, h] :
         {std::pair<const char*, const Histogram*>{"sample first byte",
                                                   &e.sample_first_byte},
          {"sample last byte", &e.sample_last_byte},
          {"accelerator wait", &e.wait}}) {
      LineSeries l{name, {}};
      for (double q : qs) l.values.push_back(Ms(*h, q));
      if (h->count() > 0) series.push_back(std::move(l));
    }
    rows.push_back({ep.label, MsCell(e.sample_first_byte, 0.5),
                    MsCell(e.sample_first_byte, 0.99),
                    MsCell(e.sample_last_byte, 0.5),
                    MsCell(e.sample_last_byte, 0.99), MsCell(e.wait, 0.5),
                    MsCell(e.wait, 0.99), MsCell(e.wait, 1.0)});
    if (series.empty() || rows.size() > kMaxCharts) continue;
    charts += LogLineChart(absl::StrCat(ep.label, ": latency"), "ms (log)",
                           labels, series);
  }
  return "<h3>Latency</h3>\n<p>Per sample, from its request to its first "
         "block (io.block_size) and to its last byte; per batch, the "
         "accelerator's wait for it. Percentiles of histograms merged over "
         "every rank and node.</p>\n" +
         charts +
         HtmlTable({"epoch", "first byte p50 ms", "first byte p99 ms",
                    "last byte p50 ms", "last byte p99 ms", "wait p50 ms",
                    "wait p99 ms", "wait max ms"},
                   rows);
}

// Adjacent windows pooled so that at most kMaxWindows remain: the steps'
// mean and variance over the pooled windows.
std::vector<EpochResult::Window> Pooled(
    const std::vector<EpochResult::Window>& windows, size_t* per) {
  *per = std::max<size_t>(1, (windows.size() + kMaxWindows - 1) / kMaxWindows);
  std::vector<EpochResult::Window> out;
  for (size_t i = 0; i < windows.size(); i += *per) {
    double n = 0, sum = 0, sq = 0;
    for (size_t k = i; k < std::min(windows.size(), i + *per); ++k) {
      const double w = static_cast<double>(windows[k].steps);
      n += w;
      sum += w * windows[k].mean_seconds;
      sq += w * (windows[k].variance +
                 windows[k].mean_seconds * windows[k].mean_seconds);
    }
    if (n == 0) continue;
    const double mean = sum / n;
    out.push_back(
        {static_cast<uint64_t>(n), mean, std::max(0.0, sq / n - mean * mean)});
  }
  return out;
}

std::string StepSection(const std::vector<Epoch>& epochs) {
  std::string charts;
  std::vector<std::vector<std::string>> rows;
  for (const Epoch& ep : epochs) {
    const EpochResult& e = *ep.e;
    if (e.windows.empty()) continue;
    size_t per = 1;
    const std::vector<EpochResult::Window> pooled = Pooled(e.windows, &per);
    double worst = 0, n = 0, sum = 0;
    for (const EpochResult::Window& w : e.windows) {
      worst = std::max(worst, std::sqrt(w.variance));
      n += static_cast<double>(w.steps);
      sum += static_cast<double>(w.steps) * w.mean_seconds;
    }
    rows.push_back({ep.label, std::to_string(e.windows.size()),
                    Fixed(n > 0 ? 1e3 * sum / n : 0, 3),
                    Fixed(1e3 * worst, 3)});
    if (rows.size() > kMaxCharts) continue;
    std::vector<std::string> x;
    LineSeries mean{"mean step ms", {}}, sd{"standard deviation ms", {}};
    for (size_t i = 0; i < pooled.size(); ++i) {
      x.push_back(absl::StrCat(i * per * 100 + 1));
      mean.values.push_back(1e3 * pooled[i].mean_seconds);
      sd.values.push_back(1e3 * std::sqrt(pooled[i].variance));
    }
    charts += LogLineChart(
        absl::StrCat(ep.label, ": step time per ",
                     per == 1 ? std::string("100 steps")
                              : absl::StrCat(per * 100, " steps (pooled)")),
        "ms (log)", x, {mean, sd});
  }
  if (rows.empty()) return "";
  return "<h3>Step time</h3>\n<p>A step is the accelerator's wait for a "
         "batch plus its compute; mean and standard deviation per window of "
         "100 steps, averaged over ranks (the x axis: the window's first "
         "step). A steady loader keeps the deviation small.</p>\n" +
         charts +
         HtmlTable({"epoch", "windows", "mean step ms",
                    "largest window standard deviation ms"},
                   rows);
}

std::string WorkerSection(const std::vector<Epoch>& epochs) {
  std::vector<std::vector<std::string>> rows;
  for (const Epoch& ep : epochs) {
    const EpochResult& e = *ep.e;
    if (e.workers.empty()) continue;
    uint64_t requests = 0, retries = 0, throttles = 0, connections = 0;
    uint64_t least = UINT64_MAX, most = 0;
    for (const EpochResult::Worker& w : e.workers) {
      requests += w.requests;
      retries += w.retries;
      throttles += w.throttles;
      connections += w.new_connections;
      least = std::min(least, w.samples);
      most = std::max(most, w.samples);
    }
    rows.push_back({ep.label, std::to_string(e.workers.size()),
                    std::to_string(e.idle_workers),
                    absl::StrCat(least, " / ", most), std::to_string(requests),
                    std::to_string(retries), std::to_string(throttles),
                    std::to_string(connections)});
  }
  if (rows.empty()) return "";
  return "<h3>Workers</h3>\n<p>Each worker reads through its own "
         "connections, as PyTorch's worker processes do; requests, retries, "
         "throttles and new connections are the object stores' (0 on file "
         "systems).</p>\n" +
         HtmlTable({"epoch", "workers", "idle (iterable: no object)",
                    "samples per worker (least / most)", "requests", "retries",
                    "throttles", "new connections"},
                   rows);
}

}  // namespace

std::string DataLoaderSection(const ReportInput& input) {
  const std::vector<Epoch> epochs = EpochsOf(input);
  if (epochs.empty()) return "";
  return "<h2>The data loader</h2>\n<p>Dataload epochs "
         "(run.workload=dataload): ranks split the dataset as PyTorch's "
         "DistributedSampler does, each with dataload.num_workers workers "
         "reading whole batches; samples/s and MiB/s are totals over each "
         "epoch's time, from the common start to the last batch consumed. The "
         "first epoch is always cold; warm epochs (dataload.warm_epochs) "
         "allow caches.</p>\n" +
         LoaderSweepSection(input) + RateSection(epochs) +
         UtilizationSection(epochs) + LatencySection(epochs) +
         StepSection(epochs) + WorkerSection(epochs);
}

}  // namespace ckpt
