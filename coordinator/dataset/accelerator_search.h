// How many accelerators a storage feeds (dataload.find_accelerators): the
// largest count of emulated accelerators (ranks per node, on every node)
// that one cold epoch each keeps at or above MLPerf Storage's 90%
// utilization. Counts double from 1 until one falls below (or the limit
// is reached), then the gap between the last that held and the first that
// fell is halved until they are next to each other. The search says what
// ended it: a count that fell while ckptbench's own client was the limit
// (the round flagged client_bound) is the client's, not the storage's.
// Pure; thread-compatible.
#ifndef CKPTBENCH_COORDINATOR_DATASET_ACCELERATOR_SEARCH_H_
#define CKPTBENCH_COORDINATOR_DATASET_ACCELERATOR_SEARCH_H_

#include <string>
#include <vector>

#include "coordinator/dataset/dataset_results.h"
#include "coordinator/results.h"

namespace ckpt {

// MLPerf Storage passes a storage system for a workload at this
// utilization or above.
inline constexpr double kMlperfUtilization = 0.9;

// The next ranks per node to try, or 0 when the search is over.
int NextRanksPerNode(const AcceleratorSearchResult& search);

// A trial's epoch into the search (its round at `round_index` of the
// run's rounds).
void AddTrial(const RoundResult& round, int ranks_per_node, int round_index,
              AcceleratorSearchResult* search);

// Once NextRanksPerNode says 0: the largest count that held and what
// ended the search.
void ConcludeSearch(AcceleratorSearchResult* search);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_ACCELERATOR_SEARCH_H_
