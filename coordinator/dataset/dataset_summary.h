// The dataset workloads' parts of the terminal summary, registered with
// them (coordinator/workload_registry.cc): datagen's dataset and what the
// run wrote, reused or removed; dataload's dataset, a line per epoch, the
// checkpoints during epochs and the accelerator search (the checkpoint
// saves it embeds are the checkpoint's to show).
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATASET_SUMMARY_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATASET_SUMMARY_H_

#include <string>

#include "coordinator/report_parts.h"
#include "coordinator/summary_parts.h"

namespace ckpt {

WorkloadSummary DatagenSummary();
WorkloadSummary DataloadSummary();

// A dataload sweep's points at the end of `ckptbench sweep` (dataload's
// WorkloadSummary::sweep_table): each one's cold epochs, the means over
// its repeats; "" when no run has an epoch.
std::string LoaderSweepTable(const ReportInput& input);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATASET_SUMMARY_H_
