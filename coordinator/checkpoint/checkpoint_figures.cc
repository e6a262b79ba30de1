// The checkpoint's figures of a run (coordinator/results.h): each phase's
// timed rounds summed up, and goodput from the saves' cost and the loads.
// Rounds of another workload, or of one this build does not know, are not
// the checkpoint's and stay out.
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/stats.h"
#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/results.h"

namespace ckpt {

PhaseSummary RunResult::Summarize(Phase phase) const {
  std::vector<double> secs, rates;
  std::map<RoundFlag, int> flags;
  uint64_t bytes = 0;
  double total = 0;
  for (const auto& r : rounds) {
    if (r.workload != kCheckpointWorkload || r.phase != phase || r.staged ||
        r.status != RunStatus::kOk) {
      continue;
    }
    secs.push_back(r.seconds);
    rates.push_back(r.throughput_mib_s);
    for (const auto& f : r.flags) ++flags[f];
    bytes += r.bytes;
    total += r.seconds;
  }
  PhaseSummary s;
  s.bytes = bytes;
  s.total_seconds = total;
  s.total_mib_s = MibPerSecond(bytes, total);
  s.flags = std::move(flags);
  s.seconds = SpreadOf(secs);
  s.mib_s = SpreadOf(rates);
  s.count = s.seconds.count;
  return s;
}

std::optional<GoodputResult> GoodputOf(const RunResult& run) {
  const GoodputAt* at = GoodputAtOf(run);
  return at == nullptr ? std::nullopt : GoodputOf(run, *at);
}

std::optional<GoodputResult> GoodputOf(const RunResult& run,
                                       const GoodputAt& at) {
  if (at.mttf_seconds <= 0) return std::nullopt;
  std::vector<double> costs, persists, loads, visible;
  bool async = false;
  for (const auto& r : run.rounds) {
    // A dataload epoch is no restart's load.
    if (r.staged || r.status != RunStatus::kOk ||
        r.workload != kCheckpointWorkload) {
      continue;
    }
    if (r.phase == Phase::kSave) {
      const RoundStaging& st = r.staging;
      async = async || st.async;
      // The part of the cost that does not depend on the interval; an
      // async save's wait for its persistence does (GoodputInputs).
      costs.push_back(st.async ? st.blocking_seconds + st.slowdown_seconds
                               : st.checkpoint_cost_seconds);
      persists.push_back(st.async ? st.persist_seconds : 0);
      // A step never visible counts at the time given up after.
      if (const Visibility* v = VisibilityOf(r)) visible.push_back(v->seconds);
    } else if (r.phase == Phase::kLoad) {
      loads.push_back(r.seconds);
    }
  }
  if (costs.empty()) return std::nullopt;
  GoodputInputs in;
  in.delta_seconds = MedianOf(costs);
  in.persist_seconds = MedianOf(persists);
  // A restart waits for the newest step to be visible, then loads it.
  const double to_visible = visible.empty() ? 0 : MedianOf(visible);
  in.restart_seconds = (loads.empty() ? 0 : MedianOf(loads)) + to_visible;
  in.mttf_seconds = at.mttf_seconds;
  in.interval_seconds = at.interval_seconds;
  GoodputResult g = ComputeGoodput(in);
  g.delta_source =
      async ? absl::StrCat("median of ", costs.size(),
                           " async saves' blocking time + training slowdown, "
                           "+ the wait for persistence (median ",
                           absl::StrFormat("%.3f", in.persist_seconds),
                           " s) at intervals shorter than it")
            : absl::StrCat("median of ", costs.size(),
                           " synchronous save round times");
  const std::string visible_source =
      visible.empty()
          ? "time to visible not measured (0)"
          : absl::StrFormat("+ median time to visible of %d saves (%.3f s)",
                            static_cast<int>(visible.size()), to_visible);
  g.restart_source = loads.empty()
                         ? absl::StrCat("no load measured: 0 ", visible_source)
                         : absl::StrCat("median of ", loads.size(),
                                        " load round times ", visible_source);
  return g;
}

}  // namespace ckpt
