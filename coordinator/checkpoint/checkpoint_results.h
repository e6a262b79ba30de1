// The checkpoint's sections of result.json (coordinator/result_section.h):
// the run's "reshard", placed before the rounds: a resharded restore's plan
// (reshard.h), per loading rank; and the run's "goodput", at the end: what
// checkpoints cost a training job (coordinator/goodput.h), derived from the
// rounds when the file is written, at the run.mttf and run.interval the
// section holds. Their codecs are checkpoint_result_json.h's.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULTS_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/kinds.h"
#include "coordinator/goodput.h"
#include "coordinator/result_section.h"
#include "coordinator/results.h"

namespace ckpt {

inline constexpr char kReshardSection[] = "reshard";
inline constexpr char kGoodputSection[] = "goodput";

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

  std::string ToJson(const RunResult& run) const override;
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

// What goodput is computed at (result.json's "goodput" holds them beside
// what they give): run.mttf and run.interval. Recorded by the checkpoint's
// Planning for every run with run.mttf set (dataload puts the measured
// interval between its epochs' saves in its place).
struct GoodputAt : ResultSection {
  double mttf_seconds = 0;
  double interval_seconds = 0;

  // Goodput as `run`'s rounds give it at what this holds (GoodputOf): ""
  // while it cannot be computed (no timed save).
  std::string ToJson(const RunResult& run) const override;
};

inline const GoodputAt* GoodputAtOf(const RunResult& r) {
  return SectionAs<GoodputAt>(r.sections, kGoodputSection);
}
inline void SetGoodputAt(RunResult* r, double mttf_seconds,
                         double interval_seconds) {
  auto at = std::make_shared<GoodputAt>();
  at->mttf_seconds = mttf_seconds;
  at->interval_seconds = interval_seconds;
  r->sections[kGoodputSection] = std::move(at);
}

// Goodput at the run's GoodputAt and at the optimal interval (goodput.h),
// from the median timed save's checkpoint cost and the median timed load;
// none without run.mttf or a timed save (checkpoint_figures.cc).
std::optional<GoodputResult> GoodputOf(const RunResult& r);
// The same at `at` (r's own or another's).
std::optional<GoodputResult> GoodputOf(const RunResult& r, const GoodputAt& at);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULTS_H_
