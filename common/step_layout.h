// How a checkpoint lies in storage, shared by the coordinator and the
// nodes: step directories ("step-<n>", n from 1 to kMaxStep), the commit
// point's name in each and the most bytes it may have, and how paths and
// URIs are joined. Pure functions.
#ifndef CKPTBENCH_COMMON_STEP_LAYOUT_H_
#define CKPTBENCH_COMMON_STEP_LAYOUT_H_

#include <cstdint>
#include <string>

namespace ckpt {

// The largest step number ckptbench writes or reads: 2^53 - 1, exact as a
// JSON number (result.json, .metadata). A directory named past it was not
// made by ckptbench and is ignored, with a note, so it cannot make step
// numbers wrap or block other runs.
inline constexpr uint64_t kMaxStep = (uint64_t{1} << 53) - 1;

// The commit point's name in a step directory.
inline constexpr char kMetadataFile[] = ".metadata";

// The largest .metadata ckptbench writes (plans that would write more are
// refused, coordinator/checkpoint/planner.h) or reads (larger ones are refused
// unread).
inline constexpr uint64_t kMaxMetadataBytes = 512ull << 20;

// The name of the generator of a checkpoint's bytes
// (node/pattern.h), as .metadata records it: a load regenerates them
// to verify, so it refuses a checkpoint made by another. A change to the bytes
// needs a new name.
inline constexpr char kPatternName[] = "pool-xor-v1";

// "step-12" -> 12; 0 if the name is not a step directory ("step-" and
// decimal digits without a leading zero, from 1 to kMaxStep).
uint64_t ParseStepDir(const std::string& name);
// Whether `name` looks like a step directory whose number is past kMaxStep
// (all digits, no leading zero): one a listing ignores with a note.
bool IsStepPastTheBound(const std::string& name);
std::string StepDirName(uint64_t step);

// "a" + "b" with one '/' between them (for both paths and URIs).
std::string JoinPath(const std::string& a, const std::string& b);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_STEP_LAYOUT_H_
