// The checkpoint's parts of the terminal summary, registered with it
// (coordinator/workload_registry.cc): the model and its checkpoint's size;
// per phase the timed rounds' spread and rate; and for the saves of any
// run (a dataload's during its epochs too) time to visible, the training
// loop's view of staged saves, and goodput.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_SUMMARY_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_SUMMARY_H_

#include <string>

#include "coordinator/summary_parts.h"

namespace ckpt {

WorkloadSummary CheckpointSummary();

// A checkpoint round's name, in `form`: every place names a round through
// this one function.
std::string CheckpointRoundName(Phase phase, int index, bool staged,
                                RoundNameForm form);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_SUMMARY_H_
