// A workload's sections of the HTML report (report/html_report.h),
// registered with it in the WorkloadRegistry: given the runs the report
// shows that have a result (a ReportInput: with how many runs there are
// and, for a sweep, what it swept), the part draws what the runs that
// carry its data have (its own result section, coordinator/result_section.h)
// and returns "" when none does. The report itself holds what every workload's
// has (the header, the points' rates, latencies, the timeline, what it could
// not read). Every string from a result is HTML-escaped by the part; it draws
// with report/draw/ (svg.h, report_format.h).
#ifndef CKPTBENCH_COORDINATOR_REPORT_PARTS_H_
#define CKPTBENCH_COORDINATOR_REPORT_PARTS_H_

#include <functional>
#include <string>
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

using WorkloadReport = std::function<std::string(const ReportInput& input)>;

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_REPORT_PARTS_H_
