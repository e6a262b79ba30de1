// Inline SVG charts for the HTML report: grouped bars with whiskers, lines
// over a log axis, and a horizontal timeline. Each returns one <figure>
// holding a self-contained <svg> (no scripts, no external references).
// Pure functions; thread-safe. Below the coordinator (its own library,
// ckpt_draw), so a workload's registered report part draws with it too.
#ifndef CKPTBENCH_REPORT_DRAW_SVG_H_
#define CKPTBENCH_REPORT_DRAW_SVG_H_

#include <optional>
#include <string>
#include <vector>

namespace ckpt {

std::string HtmlEscape(const std::string& s);

// A <table> with a header row; every cell escaped.
std::string HtmlTable(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows);

struct BarSeries {
  std::string name;
  std::string color;
  std::vector<double> values;  // one per category
  // Optional whiskers (same length as values) and extra dots per category
  // (e.g. each repeat's mean).
  std::vector<double> low, high;
  std::vector<std::vector<double>> dots;
};

// A horizontal line across a bar chart at `value` (a pass mark), named.
struct BarRule {
  double value = 0;
  std::string label;
};

std::string BarChart(const std::string& title, const std::string& y_label,
                     const std::vector<std::string>& categories,
                     const std::vector<BarSeries>& series,
                     const std::optional<BarRule>& rule = std::nullopt);

struct LineSeries {
  std::string name;
  std::vector<double> values;  // one per x label; <= 0 is skipped
};

// Y on a log10 axis (latencies span decades).
std::string LogLineChart(const std::string& title, const std::string& y_label,
                         const std::vector<std::string>& x_labels,
                         const std::vector<LineSeries>& series);

struct TimelineRow {
  std::string label;
  double start = 0, end = 0;  // seconds from the round's common start
  double mark = -1;           // a tick inside the bar (<0: none)
  std::string color;
};

std::string Timeline(const std::string& title, const std::string& x_label,
                     const std::vector<TimelineRow>& rows);

// The palette, by index (wraps).
std::string SeriesColor(size_t i);

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_DRAW_SVG_H_
