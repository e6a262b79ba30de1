#include "coordinator/checkpoint/checkpoint_html.h"

#include "coordinator/checkpoint/loop_html.h"
#include "coordinator/checkpoint/restore_html.h"

namespace ckpt {

WorkloadReport CheckpointReport() {
  WorkloadReport report;
  report.parts = {{ReportPlace::kBeforeTimeline, VisibleSection},
                  {ReportPlace::kBeforeTimeline, ReshardSection},
                  {ReportPlace::kAfterTimeline, TrainingLoopSection},
                  {ReportPlace::kAfterTimeline, GoodputSection}};
  return report;
}

}  // namespace ckpt
