#include "coordinator/checkpoint/loop_html.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "coordinator/checkpoint/checkpoint_results.h"
#include "report/draw/report_format.h"
#include "report/draw/svg.h"

namespace ckpt {
namespace {

constexpr size_t kMaxGoodputCharts = 8;

std::string Duration(double s) {
  if (s >= 3600) return absl::StrFormat("%.1f h", s / 3600);
  if (s >= 60) return absl::StrFormat("%.1f min", s / 60);
  return absl::StrFormat("%.2f s", s);
}

}  // namespace

std::string TrainingLoopSection(const ReportInput& input) {
  std::vector<std::vector<std::string>> rows;
  for (const ReportRun& run : input.runs) {
    for (const RoundResult& round : run.result->rounds) {
      const RoundStaging& st = round.staging;
      const bool async = st.async;
      const uint64_t copied = st.copy_bytes;
      if (!async && copied == 0) continue;
      std::string copies = "-";
      if (copied > 0) {
        copies =
            absl::StrFormat("%s at %.2f GiB/s per stream (%s)",
                            FormatBytes(copied), st.copy_gib_s,
                            st.accelerator != Accelerator::kGpu ? "host memory"
                            : st.pinned                         ? "pinned"
                                                                : "pageable");
      }
      rows.push_back(
          {run.label, RoundName(round),
           async ? Fixed(st.blocking_seconds, 3) : "-",
           async ? Fixed(st.persist_seconds, 3) : "-",
           async ? absl::StrFormat("%.3f (%.2fx)", st.compute_seconds,
                                   st.compute_slowdown)
                 : "-",
           async ? (st.fell_behind ? "FELL BEHIND" : "no") : "-",
           round.phase == Phase::kSave ? Fixed(st.checkpoint_cost_seconds, 3)
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

std::string GoodputSection(const ReportInput& input) {
  std::string charts;
  std::vector<std::vector<std::string>> rows;
  size_t drawn = 0;
  for (const ReportRun& run : input.runs) {
    // Computed again from the rounds, run.mttf and run.interval, as the
    // run computed what its result.json says.
    const std::optional<GoodputResult> goodput = GoodputOf(*run.result);
    if (!goodput) continue;
    const GoodputResult& g = *goodput;
    const double interval = g.in.interval_seconds;
    rows.push_back(
        {run.label, Duration(g.in.mttf_seconds),
         absl::StrCat(Fixed(g.in.delta_seconds, 3), " (", g.delta_source, ")"),
         absl::StrCat(Fixed(g.in.restart_seconds, 3), " (", g.restart_source,
                      ")"),
         interval > 0 ? absl::StrFormat("%s: %.3f%%", Duration(interval),
                                        100 * g.at_interval.goodput)
                      : "-",
         absl::StrFormat("%s: %.3f%%", Duration(g.at_optimum.interval_seconds),
                         100 * g.at_optimum.goodput),
         absl::StrFormat("Young %s; Daly %s: %.3f%%", Duration(g.young_seconds),
                         Duration(g.daly_seconds), 100 * g.at_daly.goodput)});
    if (drawn == kMaxGoodputCharts) continue;
    std::vector<std::string> x;
    LineSeries lost{"time lost (%)", {}};
    for (const GoodputPoint& p : g.curve) {
      x.push_back(Duration(p.interval_seconds));
      lost.values.push_back(100 * p.waste);
    }
    if (x.empty()) continue;
    ++drawn;
    charts += LogLineChart(
        absl::StrCat("Run ", run.label,
                     ": time lost to checkpoints and failures vs interval"),
        "% of training time lost (log)", x, {lost});
  }
  if (rows.empty()) return "";
  return "<h2>Goodput</h2>\n<p>From the measured checkpoint cost delta, "
         "the restart time R (the load time, plus the time to visible when "
         "measured) "
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
