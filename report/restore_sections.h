// The HTML report's restore sections: resharded restores (read
// amplification, per-rank reads). Pure; thread-safe.
#ifndef CKPTBENCH_REPORT_RESTORE_SECTIONS_H_
#define CKPTBENCH_REPORT_RESTORE_SECTIONS_H_

#include <string>

#include "report/sweep_data.h"

namespace ckpt {

// "" when no run loaded a checkpoint saved in another layout.
std::string ReshardSection(const SweepData& data);

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_RESTORE_SECTIONS_H_
