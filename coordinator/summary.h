// The terminal summary table printed at the end of a run.
#ifndef CKPTBENCH_COORDINATOR_SUMMARY_H_
#define CKPTBENCH_COORDINATOR_SUMMARY_H_

#include <string>

#include "coordinator/results.h"

namespace ckpt {

std::string SummaryTable(const RunResult& result);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_SUMMARY_H_
