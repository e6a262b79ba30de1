// A workload's sections of the HTML report (report/html_report.h),
// registered with it in the WorkloadRegistry: given every run the report
// shows, the part draws what the runs that carry its data have (its own
// result section, coordinator/result_section.h) and returns "" when none
// does. The report itself holds what every workload's has (the header,
// the points' rates, latencies, the timeline, what it could not read).
// Every string from a result is HTML-escaped by the part.
#ifndef CKPTBENCH_COORDINATOR_REPORT_PARTS_H_
#define CKPTBENCH_COORDINATOR_REPORT_PARTS_H_

#include <functional>
#include <string>
#include <vector>

#include "coordinator/results.h"

namespace ckpt {

struct ReportRun {
  std::string label;  // how the report names the run (its directory)
  const RunResult* result = nullptr;
};

using WorkloadReport =
    std::function<std::string(const std::vector<ReportRun>& runs)>;

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_REPORT_PARTS_H_
