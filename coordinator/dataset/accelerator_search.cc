#include "coordinator/dataset/accelerator_search.h"

#include <algorithm>
#include <limits>

namespace ckpt {
namespace {

// The most ranks per node that held, and the fewest that fell (max int:
// none fell).
void Bounds(const AcceleratorSearchResult& s, int* held, int* fell) {
  *held = 0;
  *fell = std::numeric_limits<int>::max();
  for (const auto& t : s.trials) {
    if (t.held) {
      *held = std::max(*held, t.ranks_per_node);
    } else {
      *fell = std::min(*fell, t.ranks_per_node);
    }
  }
}

}  // namespace

int NextRanksPerNode(const AcceleratorSearchResult& s) {
  if (s.trials.empty()) return s.max_per_node >= 1 ? 1 : 0;
  int held, fell;
  Bounds(s, &held, &fell);
  if (fell == std::numeric_limits<int>::max()) {
    if (held >= s.max_per_node) return 0;  // every count up to the limit
    return std::min(s.max_per_node, 2 * held);
  }
  if (fell - held <= 1) return 0;
  return held + (fell - held) / 2;
}

void AddTrial(const RoundResult& round, int ranks_per_node, int round_index,
              AcceleratorSearchResult* s) {
  AcceleratorSearchResult::Trial t;
  t.ranks_per_node = ranks_per_node;
  t.accelerators = ranks_per_node * s->nodes;
  t.round_index = round_index;
  if (const EpochResult* e = EpochOf(round)) {
    t.utilization = e->utilization;
    t.samples_per_second = e->samples_per_second;
    t.batches_per_rank = e->ranks.empty() ? 0 : e->batches / e->ranks.size();
  }
  t.client_bound = !round.client_bound.empty();
  t.held = round.status == RunStatus::kOk && t.utilization >= s->threshold;
  s->trials.push_back(t);
}

void ConcludeSearch(AcceleratorSearchResult* s) {
  int held, fell;
  Bounds(*s, &held, &fell);
  s->largest_per_node = held;
  s->largest_accelerators = held * s->nodes;
  if (fell == std::numeric_limits<int>::max()) {
    s->ended_by = SearchEnd::kLimit;
    return;
  }
  for (const auto& t : s->trials) {
    if (t.ranks_per_node == fell) {
      s->ended_by = t.client_bound ? SearchEnd::kClient : SearchEnd::kStorage;
    }
  }
}

}  // namespace ckpt
