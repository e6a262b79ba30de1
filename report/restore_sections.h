// The HTML report's restore sections: resharded restores (read
// amplification, per-rank reads) and time to visible after each save.
// Pure; thread-safe.
#ifndef CKPTBENCH_REPORT_RESTORE_SECTIONS_H_
#define CKPTBENCH_REPORT_RESTORE_SECTIONS_H_

#include <string>

#include "report/sweep_data.h"

namespace ckpt {

// "" when no run loaded a checkpoint saved in another layout.
std::string ReshardSection(const SweepData& data);
// Rounds with a node >= kStragglerRatio x the median node: which node,
// what set it apart, its slowest files. "" when none.
std::string StragglerSection(const SweepData& data);
// "" when no save measured its time to visible.
std::string VisibleSection(const SweepData& data);

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_RESTORE_SECTIONS_H_
