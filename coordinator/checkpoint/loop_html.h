// The checkpoint's training-loop sections of the HTML report (parts of its
// WorkloadReport, coordinator/checkpoint/checkpoint_html.h): what each
// save cost the training loop (async blocking vs persist time, device
// copies) and goodput against the checkpoint interval. Pure; thread-safe.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_LOOP_HTML_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_LOOP_HTML_H_

#include <string>

#include "coordinator/report_parts.h"

namespace ckpt {

// "" when no run has an async save or device copies.
std::string TrainingLoopSection(const ReportInput& input);
// "" when no run has goodput (run.mttf unset).
std::string GoodputSection(const ReportInput& input);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_LOOP_HTML_H_
