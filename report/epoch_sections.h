// The HTML report's data-loader section (run.workload=dataload): per
// epoch, what the loader delivered (samples/s, time to first batch,
// per-sample latency, the accelerators' wait and utilization against
// MLPerf Storage's 90% line, step time per 100 steps), each chart with its
// numbers in a table. Pure; thread-safe.
#ifndef CKPTBENCH_REPORT_EPOCH_SECTIONS_H_
#define CKPTBENCH_REPORT_EPOCH_SECTIONS_H_

#include <string>

#include "report/sweep_data.h"

namespace ckpt {

// "" when no run has a dataload epoch.
std::string DataLoaderSection(const SweepData& data);

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_EPOCH_SECTIONS_H_
