// The checkpoint's sections of result.json (coordinator/result_section.h):
// the run's "reshard", placed before the rounds: a resharded restore's plan
// (reshard.h), per loading rank. Its codec is checkpoint_result_json.h's.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULTS_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/kinds.h"
#include "coordinator/result_section.h"
#include "coordinator/results.h"

namespace ckpt {

inline constexpr char kReshardSection[] = "reshard";

struct ReshardRankResult {
  uint32_t rank = 0;
  int node = 0;
  uint64_t bytes_needed = 0, bytes_read = 0;
  size_t files = 0;                  // saved files it reads from
  uint64_t reads = 0;                // contiguous byte ranges it reads
  std::vector<uint32_t> from_ranks;  // the saving ranks of those files
};

// A load of a checkpoint saved in another layout (result.json's "reshard").
struct ReshardResult : ResultSection {
  ReshardReads mode = ReshardReads::kRanges;
  int from_world = 0, to_world = 0;
  std::string from_layout, to_layout;
  uint64_t bytes_needed = 0, bytes_read = 0;
  double read_amplification = 0;
  double planning_seconds = 0;
  std::vector<ReshardRankResult> ranks;

  std::string ToJson() const override;  // checkpoint_result_json.cc
};

// The run's resharded restore, or null when it loaded its own layout.
inline const ReshardResult* ReshardOf(const RunResult& r) {
  return SectionAs<ReshardResult>(r.sections, kReshardSection);
}
// `reshard` as the run's section (replacing any).
inline void SetReshard(RunResult* r, ReshardResult reshard) {
  r->sections[kReshardSection] =
      std::make_shared<const ReshardResult>(std::move(reshard));
}

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULTS_H_
