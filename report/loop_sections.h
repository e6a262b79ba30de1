// The HTML report's training-loop sections: what each save cost the
// training loop (async blocking vs persist time, device copies) and
// goodput against the checkpoint interval. Pure; thread-safe.
#ifndef CKPTBENCH_REPORT_LOOP_SECTIONS_H_
#define CKPTBENCH_REPORT_LOOP_SECTIONS_H_

#include <string>

#include "report/sweep_data.h"

namespace ckpt {

// "" when no run has an async save or device copies.
std::string TrainingLoopSection(const SweepData& data);
// "" when no run has goodput (run.mttf unset).
std::string GoodputSection(const SweepData& data);

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_LOOP_SECTIONS_H_
