// The HTML report's view of a dataload sweep: each point's cold epoch
// (the mean over its repeats) against the last swept parameter (workers,
// shard size, small or large files), a series for each value of the other
// swept parameters (the storage kind, the loader's kind): samples/s,
// accelerator utilization against MLPerf Storage's 90% line, and the step
// time's standard deviation, with the numbers in a table. Pure;
// thread-safe.
#ifndef CKPTBENCH_COORDINATOR_DATASET_LOADER_SWEEP_HTML_H_
#define CKPTBENCH_COORDINATOR_DATASET_LOADER_SWEEP_HTML_H_

#include <string>
#include <vector>

#include "coordinator/report_parts.h"

namespace ckpt {

// "" for a single run, a sweep with nothing swept, or no dataload epoch.
std::string LoaderSweepSection(const ReportInput& input);

// Each point's cold epochs, the means over its repeats (the sweep's table
// on the terminal).
struct LoaderPoint {
  std::string point_name;
  int epochs = 0;
  double samples_per_second = 0, utilization = 0;  // utilization: 0..1
  double step_sd_ms = 0;
  bool compute = false;  // dataload.compute_time > 0
};
std::vector<LoaderPoint> LoaderPoints(const ReportInput& input);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_LOADER_SWEEP_HTML_H_
