// The terminal summary table printed at the end of a run: what every
// workload's has (the storage, a line per round, the nodes and clocks,
// notes, leftovers, errors) around the parts of the run's workload, found
// by its name in `registry` (coordinator/summary_parts.h). A workload the
// registry does not know gets its rounds and a note saying so.
#ifndef CKPTBENCH_COORDINATOR_SUMMARY_H_
#define CKPTBENCH_COORDINATOR_SUMMARY_H_

#include <string>

#include "coordinator/results.h"
#include "coordinator/workload_registry.h"

namespace ckpt {

std::string SummaryTable(
    const RunResult& result,
    const WorkloadRegistry& registry = WorkloadRegistry::BuiltIn());

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_SUMMARY_H_
