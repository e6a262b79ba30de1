// The checkpoint's sections of the HTML report, registered with it
// (RunWorkloadEntry::report, coordinator/report_parts.h): before the
// rounds' timeline, time to visible after each save and the resharded
// restores (restore_html.h); after it, what saves cost the training loop
// and goodput (loop_html.h). Pure; thread-safe.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_HTML_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_HTML_H_

#include "coordinator/report_parts.h"

namespace ckpt {

WorkloadReport CheckpointReport();

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_HTML_H_
