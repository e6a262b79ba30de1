#include "report/loop_sections.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "report/svg.h"

namespace ckpt {
namespace {

constexpr size_t kMaxGoodputCharts = 8;

std::string F(double v, int digits) {
  return absl::StrFormat("%.*f", digits, v);
}

std::string Duration(double s) {
  if (s >= 3600) return absl::StrFormat("%.1f h", s / 3600);
  if (s >= 60) return absl::StrFormat("%.1f min", s / 60);
  return absl::StrFormat("%.2f s", s);
}

}  // namespace

std::string TrainingLoopSection(const SweepData& data) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& run : data.runs) {
    if (!run.has_result) continue;
    for (const auto& round : JsonAt(run.result, "rounds")) {
      const auto& st = JsonAt(round, "staging");
      const bool async = st.value("async", false);
      const uint64_t copied = st.value("copy_bytes", uint64_t{0});
      if (!async && copied == 0) continue;
      const std::string phase = round.value("phase", "");
      std::string copies = "-";
      if (copied > 0) {
        copies = absl::StrFormat(
            "%s at %.2f GiB/s per stream (%s)", FormatBytes(copied),
            st.value("copy_gib_s", 0.0),
            st.value("accelerator", "cpu") != "gpu" ? "host memory"
            : st.value("pinned", false)             ? "pinned"
                                                    : "pageable");
      }
      rows.push_back(
          {RunLabel(data, run),
           absl::StrCat(round.value("staged", false) ? "stage" : phase, " ",
                        round.value("index", 0)),
           async ? F(st.value("blocking_seconds", 0.0), 3) : "-",
           async ? F(st.value("persist_seconds", 0.0), 3) : "-",
           async ? absl::StrFormat("%.3f (%.2fx)",
                                   st.value("compute_seconds", 0.0),
                                   st.value("compute_slowdown", 0.0))
                 : "-",
           async ? (st.value("fell_behind", false) ? "FELL BEHIND" : "no")
                 : "-",
           phase == "save" ? F(st.value("checkpoint_cost_seconds", 0.0), 3)
                           : "-",
           copies});
    }
  }
  if (rows.empty()) return "";
  return "<h2>What saves cost the training loop</h2>\n<p>Async saves "
         "(run.async): training is blocked while a save stages its bytes, "
         "then the save persists them while the next interval of simulated "
         "training runs (its time against the same work alone in "
         "parentheses). A save still persisting run.interval after training "
         "resumed fell behind: the next save would wait. Cost: what the save "
         "took from training (blocking + that wait + the slowdown; a "
         "synchronous save's whole round). Copies: device to host (saves) "
         "or host to device (loads) with ACCELERATOR=gpu, the staging "
         "memcpy on the CPU.</p>\n" +
         HtmlTable({"run", "round", "blocking s", "persist s",
                    "training s (slowdown)", "fell behind", "cost s", "copies"},
                   rows);
}

std::string GoodputSection(const SweepData& data) {
  std::string charts;
  std::vector<std::vector<std::string>> rows;
  size_t drawn = 0;
  for (const auto& run : data.runs) {
    if (!run.has_result || !run.result.contains("goodput")) continue;
    const auto& g = run.result["goodput"];
    const auto& at = JsonAt(g, "at_interval");
    const double interval = g.value("interval_seconds", 0.0);
    rows.push_back(
        {RunLabel(data, run), Duration(g.value("mttf_seconds", 0.0)),
         absl::StrCat(F(g.value("checkpoint_cost_seconds", 0.0), 3), " (",
                      g.value("checkpoint_cost_source", ""), ")"),
         absl::StrCat(F(g.value("restart_seconds", 0.0), 3), " (",
                      g.value("restart_source", ""), ")"),
         interval > 0 ? absl::StrFormat("%s: %.3f%%", Duration(interval),
                                        100 * at.value("goodput", 0.0))
                      : "-",
         absl::StrFormat(
             "%s: %.3f%%",
             Duration(JsonAt(g, "at_optimum").value("interval_seconds", 0.0)),
             100 * JsonAt(g, "at_optimum").value("goodput", 0.0)),
         absl::StrFormat("Young %s; Daly %s: %.3f%%",
                         Duration(g.value("young_interval_seconds", 0.0)),
                         Duration(g.value("daly_interval_seconds", 0.0)),
                         100 * JsonAt(g, "at_daly").value("goodput", 0.0))});
    if (drawn == kMaxGoodputCharts) continue;
    std::vector<std::string> x;
    LineSeries lost{"time lost (%)", {}};
    for (const auto& p : JsonAt(g, "curve")) {
      x.push_back(Duration(p.value("interval_seconds", 0.0)));
      lost.values.push_back(100 * p.value("waste", 0.0));
    }
    if (x.empty()) continue;
    ++drawn;
    charts += LogLineChart(
        absl::StrCat("Run ", RunLabel(data, run),
                     ": time lost to checkpoints and failures vs interval"),
        "% of training time lost (log)", x, {lost});
  }
  if (rows.empty()) return "";
  return "<h2>Goodput</h2>\n<p>From the measured checkpoint cost delta, "
         "the restart time R (load time; time to visible not yet measured) "
         "and the MTTF M the run was given (run.mttf): waste(tau) = "
         "delta(tau) / tau + (tau / 2 + R) / M, goodput = 1 - waste. An async "
         "save's delta grows by the wait for its persistence at intervals "
         "shorter than the persist time. The optimum is this model's least "
         "waste (Young's sqrt(2 delta M) when delta is constant); Daly's "
         "refinement sqrt(2 delta M) - delta is beside it. The charts' lowest "
         "point is the optimum.</p>\n" +
         HtmlTable({"run", "MTTF", "checkpoint cost s", "restart s",
                    "goodput at run.interval", "goodput at the optimum",
                    "Young, Daly"},
                   rows) +
         charts;
}

}  // namespace ckpt
