// The checkpoint's restore sections of the HTML report (parts of its
// WorkloadReport, coordinator/checkpoint/checkpoint_html.h): resharded
// restores (read amplification, per-rank reads) and time to visible after
// each save. Pure; thread-safe.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_RESTORE_HTML_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_RESTORE_HTML_H_

#include <string>

#include "coordinator/report_parts.h"

namespace ckpt {

// "" when no run loaded a checkpoint saved in another layout.
std::string ReshardSection(const ReportInput& input);
// "" when no save measured its time to visible.
std::string VisibleSection(const ReportInput& input);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_RESTORE_HTML_H_
