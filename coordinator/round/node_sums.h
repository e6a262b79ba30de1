// A node's report summed up, for any workload: its own figures into its
// NodeResult (time, rate, CPU, requests, staging), and its counts and
// operation histograms into the round's.
#ifndef CKPTBENCH_COORDINATOR_ROUND_NODE_SUMS_H_
#define CKPTBENCH_COORDINATOR_ROUND_NODE_SUMS_H_

#include "common/phase_outcome.h"
#include "coordinator/results.h"

namespace ckpt {

// The node's own figures from its report (its ranks' bytes and done times
// already in `nr`).
void FillNode(const PhaseOutcome& rep, NodeResult* nr);
// The node's counts into the round's, and its histograms merged.
void AddNode(const PhaseOutcome& rep, const NodeResult& nr,
             RoundResult* result);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_ROUND_NODE_SUMS_H_
