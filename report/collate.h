// A sweep's collated outputs, written into its directory:
//   collated_results.json (schema ckptbench.collated/v1): every run's
//     status, plan and per-phase summary, and every point's statistics
//     across its repeats;
//   results.csv: one row per run, the swept values as columns.
// Thread-compatible.
#ifndef CKPTBENCH_REPORT_COLLATE_H_
#define CKPTBENCH_REPORT_COLLATE_H_

#include <string>

#include "absl/status/status.h"
#include "report/sweep_data.h"

namespace ckpt {

std::string CollatedJson(const SweepData& data);
std::string ResultsCsv(const SweepData& data);

// Writes both files atomically into data.dir.
absl::Status WriteCollated(const SweepData& data);

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_COLLATE_H_
