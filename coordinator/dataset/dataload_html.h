// The HTML report's data-loader section (run.workload=dataload): per
// epoch, what the loader delivered (samples/s, time to first batch,
// per-sample latency, the accelerators' wait and utilization against
// MLPerf Storage's 90% line, step time per 100 steps), each chart with its
// numbers in a table; for a sweep, the points against what it swept
// (coordinator/dataset/loader_sweep_html.h). Registered as dataload's
// WorkloadReport (coordinator/report_parts.h). Pure; thread-safe.
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATALOAD_HTML_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATALOAD_HTML_H_

#include <string>

#include "coordinator/report_parts.h"

namespace ckpt {

// "" when no run has a dataload epoch.
std::string DataLoaderSection(const ReportInput& input);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATALOAD_HTML_H_
