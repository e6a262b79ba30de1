// Step directories as the coordinator sees them across storage owners:
// their URIs and what the owners' listings agree on.
#ifndef CKPTBENCH_COORDINATOR_STEPS_H_
#define CKPTBENCH_COORDINATOR_STEPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/inspection.h"

namespace ckpt {

// <dir>/step-<step>.
std::string StepUri(const std::string& dir, uint64_t step);
// The highest step any owner lists, committed or not (0: none).
uint64_t MaxStep(const std::vector<StepListing>& listings);
// The newest committed step when every storage owner has the same one
// (node-local disks must agree), else 0.
uint64_t CommonNewest(const std::vector<StepListing>& listings);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_STEPS_H_
