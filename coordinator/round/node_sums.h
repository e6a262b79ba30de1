// A node's report summed up, for any workload: its own figures into its
// NodeResult (time, rate, CPU, requests, staging), and its counts and
// operation histograms into the round's.
#ifndef CKPTBENCH_COORDINATOR_ROUND_NODE_SUMS_H_
#define CKPTBENCH_COORDINATOR_ROUND_NODE_SUMS_H_

#include <string>
#include <vector>

#include "common/phase_outcome.h"
#include "common/round_messages.h"
#include "coordinator/results.h"
#include "coordinator/round/node_client.h"

namespace ckpt {

// How the nodes kept a reading round's reads cold (their prepares):
// `result->cache` (one method, or "mixed"; resident and checked bytes
// summed) and the flags it earns: memory_backed, page_cache_allowed (a
// file system read with caches allowed), page_cache_resident (bytes were
// still cached at the start); `label` names the round in warnings.
void SumUpColdReads(const std::vector<PrepareOutcome>& prepared,
                    const std::string& label, RoundResult* result);

// Where the node's storage is, as its prepare said.
void FillNodeStorage(const PrepareOutcome& prepared, NodeResult* nr);

// The node's own figures from its report (its ranks' bytes and done times
// already in `nr`).
void FillNode(const PhaseOutcome& rep, NodeResult* nr);
// The node's counts into the round's, and its histograms merged.
void AddNode(const PhaseOutcome& rep, const NodeResult& nr,
             RoundResult* result);

// All of the above for one node of a round (its ranks' bytes and done
// times already in `nr`; `prepared` null when it did not prepare): named
// after `node`, appended to result->nodes, which it returns.
const NodeResult& AppendNode(const NodeClient& node, const PhaseOutcome& rep,
                             const PrepareOutcome* prepared, NodeResult nr,
                             RoundResult* result);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_ROUND_NODE_SUMS_H_
