// The HTML report's stragglers section: the rounds, of any workload,
// whose slowest node stood out. Pure; thread-safe.
#ifndef CKPTBENCH_REPORT_STRAGGLER_SECTION_H_
#define CKPTBENCH_REPORT_STRAGGLER_SECTION_H_

#include <string>

#include "report/sweep_data.h"

namespace ckpt {

// Rounds with a node >= kStragglerRatio x the median node: which node,
// what set it apart, its slowest files. "" when none.
std::string StragglerSection(const SweepData& data);

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_STRAGGLER_SECTION_H_
