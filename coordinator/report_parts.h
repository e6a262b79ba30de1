// A workload's sections of the HTML report (report/html_report.h),
// registered with it in the WorkloadRegistry: given the runs the report
// shows that have a result (a ReportInput: with how many runs there are
// and, for a sweep, what it swept), the part draws what the runs that
// carry its data have (its own result section, coordinator/result_section.h)
// and returns "" when none does, each part at its place among the report's
// own sections. The report itself holds what every workload's has (the
// header, the points' rates, latencies, stragglers, the timeline, what it
// could not read). Every string from a result is HTML-escaped by the part; it
// draws with report/draw/ (svg.h, report_format.h).
#ifndef CKPTBENCH_COORDINATOR_REPORT_PARTS_H_
#define CKPTBENCH_COORDINATOR_REPORT_PARTS_H_

#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "coordinator/results.h"

namespace ckpt {

struct ReportRun {
  std::string label;  // how the report names the run (its directory)
  const RunResult* result = nullptr;
  // A sweep's run: its point ("" when nothing is swept) and the values the
  // point set.
  std::string point_name;
  std::vector<std::pair<std::string, std::string>> values;
};

// What a workload's report part is given.
struct ReportInput {
  std::vector<ReportRun> runs;  // every run with a result, in sweep order
  size_t all_runs = 0;          // runs the directory holds, results or not
  bool is_sweep = false;        // false: a single run's directory
  // The parameters the sweep swept (more than one value), in its order.
  std::vector<std::string> swept;
};

// One section (or several) of the report, drawn from what `input`'s runs
// carry; "" when none carries its data.
using ReportPart = std::function<std::string(const ReportInput& input)>;

// Where a part goes among the report's own sections.
enum class ReportPlace {
  // After the shared tables of the points, the slowest rounds, the
  // latencies and the stragglers; before the rounds' timeline.
  kBeforeTimeline,
  // After the timeline (the default).
  kAfterTimeline,
};

// A workload's sections of the report, each part at its place. The parts
// of one place are drawn in the workloads' registration order, each
// workload's in this list's order.
struct WorkloadReport {
  struct Placed {
    ReportPlace place = ReportPlace::kAfterTimeline;
    ReportPart part;
  };
  WorkloadReport() = default;
  // One part, after the timeline.
  template <typename F, typename = std::enable_if_t<std::is_invocable_r_v<
                            std::string, const F&, const ReportInput&>>>
  WorkloadReport(F part) {  // NOLINT: a part is a report
    parts.push_back({ReportPlace::kAfterTimeline, ReportPart(std::move(part))});
  }
  explicit operator bool() const { return !parts.empty(); }
  // Its parts at `place`, drawn in order.
  std::string Draw(ReportPlace place, const ReportInput& input) const {
    std::string out;
    for (const Placed& p : parts) {
      if (p.place == place && p.part) out += p.part(input);
    }
    return out;
  }

  std::vector<Placed> parts;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_REPORT_PARTS_H_
