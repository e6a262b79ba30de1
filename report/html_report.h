// `ckptbench report DIR`: DIR/report.html, one self-contained file (inline
// SVG and CSS, no network) with, for a sweep or a single run:
//   throughput and time per point (throughput bars: bytes over summed
//   time; time bars: the mean round; whiskers: single rounds' min..max;
//   dots: each repeat's rate), per-node bars for the
//   slowest round of each phase, latency percentiles per operation, and a
//   timeline of each run's rounds (when each node started and finished),
//   then each workload's registered part (dataload's: the data loader's
//   epochs, coordinator/dataset/dataload_html.h), each chart with its
//   numbers in a table beneath.
// Thread-compatible.
#ifndef CKPTBENCH_REPORT_HTML_REPORT_H_
#define CKPTBENCH_REPORT_HTML_REPORT_H_

#include <string>

#include "absl/status/status.h"
#include "coordinator/workload_registry.h"
#include "report/sweep_data.h"

namespace ckpt {

// After the sections every report has, each workload's own part
// (coordinator/report_parts.h) that `registry` holds, in its order.
std::string HtmlReport(const SweepData& data, const WorkloadRegistry& registry =
                                                  WorkloadRegistry::BuiltIn());

// Writes data.dir/report.html.
absl::Status WriteHtmlReport(
    const SweepData& data,
    const WorkloadRegistry& registry = WorkloadRegistry::BuiltIn());

// Everything `sweep` and `report` leave in data.dir: for a sweep its
// collated_results.json and results.csv, then report.html.
absl::Status WriteSweepOutputs(
    const SweepData& data,
    const WorkloadRegistry& registry = WorkloadRegistry::BuiltIn());

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_HTML_REPORT_H_
