// The checkpoint's sections of result.json (coordinator/result_section.h):
// the run's "reshard", placed before the rounds: a resharded restore's plan
// (reshard.h), per loading rank; the run's "goodput", at the end: what
// checkpoints cost a training job (goodput.h), derived from the
// rounds when the file is written, at the run.mttf and run.interval the
// section holds; and a save round's "time_to_visible", after the round's
// figures. Their codecs are checkpoint_result_json.h's.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULTS_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/kinds.h"
#include "coordinator/checkpoint/goodput.h"
#include "coordinator/result_section.h"
#include "coordinator/results.h"

namespace ckpt {

inline constexpr char kReshardSection[] = "reshard";
inline constexpr char kGoodputSection[] = "goodput";
inline constexpr char kVisibleSection[] = "time_to_visible";

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

// A committed save's time to visible (run.visible_timeout): another node
// polled until it listed the step and read its .metadata back (FUSE: and
// opened a shard). A save round's section when it was measured.
struct Visibility : ResultSection {
  bool visible = false;
  int node = 0;  // the node that polled
  std::string host;
  bool same_node = false;  // a one-node run: the writer's own view
  // From the commit's acknowledgement to visible, on the coordinator's
  // clock (the node's instant converted by its clock offset; >= 0).
  double seconds = 0;
  double poll_seconds = 0;  // on the node: from the request to visible
  uint32_t polls = 0;
  // The successful poll's own time: with polls == 1 the step was there
  // when first asked, and `seconds` is mostly this (an upper bound).
  double last_poll_seconds = 0;
  std::string lacked;  // what the last failed poll lacked

  std::string ToJson(const RunResult& run) const override;
};

// The round's time to visible, or null when it was not measured.
inline const Visibility* VisibilityOf(const RoundResult& r) {
  return SectionAs<Visibility>(r.sections, kVisibleSection);
}
// `v` as the round's time to visible (replacing any).
inline void SetVisibility(RoundResult* r, Visibility v) {
  r->sections[kVisibleSection] =
      std::make_shared<const Visibility>(std::move(v));
}

// Goodput at the run's GoodputAt and at the optimal interval (goodput.h),
// from the median timed save's checkpoint cost and the median timed load;
// none without run.mttf or a timed save (checkpoint_figures.cc).
std::optional<GoodputResult> GoodputOf(const RunResult& r);
// The same at `at` (r's own or another's).
std::optional<GoodputResult> GoodputOf(const RunResult& r, const GoodputAt& at);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULTS_H_
