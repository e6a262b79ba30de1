// The checkpoint's parts of the terminal summary
// (coordinator/summary_parts.h).
#include "coordinator/checkpoint/checkpoint_summary.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/stats.h"
#include "coordinator/checkpoint/checkpoint_results.h"

namespace ckpt {
namespace {

// Per phase: the timed rounds' spread and rate, and what flagged them.
void AddPhases(const RunResult& r, std::string* out) {
  std::string& s = *out;
  absl::StrAppendFormat(&s, "%-6s %3s %10s %10s %10s %10s %12s %25s\n", "phase",
                        "n", "mean s", "stdev s", "min s", "max s", "MiB/s",
                        "one round's MiB/s min..max");
  for (const Phase phase : {Phase::kSave, Phase::kLoad}) {
    PhaseSummary p = r.Summarize(phase);
    if (p.count == 0) continue;
    absl::StrAppendFormat(
        &s, "%-6s %3d %10.3f %10.3f %10.3f %10.3f %12.1f %25s\n", Name(phase),
        p.count, p.seconds.mean, p.seconds.stdev, p.seconds.min, p.seconds.max,
        p.total_mib_s, absl::StrFormat("%.1f..%.1f", p.mib_s.min, p.mib_s.max));
    // Flagged rounds are in these numbers: say so next to them.
    for (const auto& [flag, n] : p.flags) {
      absl::StrAppendFormat(&s, "%-6s %d of %d rounds flagged %s\n", "", n,
                            p.count, flag);
    }
  }
}

// Time to visible: what a restart on another node waits before loading.
void AddVisible(const RunResult& r, std::string* out) {
  std::string& s = *out;
  std::vector<double> v;
  int not_visible = 0, node = 0;
  bool same = false;
  for (const auto& round : r.rounds) {
    const Visibility* seen = VisibilityOf(round);
    if (round.phase != Phase::kSave || round.staged || seen == nullptr) {
      continue;
    }
    node = seen->node;
    same = seen->same_node;
    if (seen->visible) {
      v.push_back(seen->seconds);
    } else {
      ++not_visible;
    }
  }
  if (!v.empty() || not_visible > 0) {
    absl::StrAppendFormat(&s, "%-6s time to visible (node %d%s): ", "save",
                          node, same ? ", the writer itself" : "");
    if (!v.empty()) {
      absl::StrAppendFormat(&s, "median %.3f s, max %.3f s over %d saves",
                            MedianOf(v), *std::max_element(v.begin(), v.end()),
                            static_cast<int>(v.size()));
    }
    if (not_visible > 0) {
      absl::StrAppendFormat(&s, "%s%d saves NOT visible within the timeout",
                            v.empty() ? "" : "; ", not_visible);
    }
    s += "\n";
  }
}

// The training loop's view of each round that staged or copied bytes.
void AddStaging(const RunResult& r, bool during_epochs, std::string* out) {
  std::string& s = *out;
  for (const auto& round : r.rounds) {
    const RoundStaging& st = round.staging;
    if (round.status != RunStatus::kOk || (!st.async && st.copy_bytes == 0))
      continue;
    std::string label = round.staged ? "stage" : std::to_string(round.index);
    absl::StrAppendFormat(&s, "%-6s %-5s", round.phase, label);
    if (st.async && during_epochs) {
      // Saved during an epoch: the training it overlapped is the epoch's.
      absl::StrAppendFormat(
          &s,
          " training blocked %.3f s, then persisted in %.3f s beside the "
          "epoch, which lost %.3f s more of training to it%s; cost %.3f s",
          st.blocking_seconds, st.persist_seconds, st.slowdown_seconds,
          st.fell_behind ? " FELL BEHIND: the next save waited" : "",
          st.checkpoint_cost_seconds);
    } else if (st.async) {
      absl::StrAppendFormat(
          &s,
          " training blocked %.3f s, then persisted in %.3f s while %.3f s "
          "of training ran (%.2fx its %.3f s alone)%s; cost %.3f s",
          st.blocking_seconds, st.persist_seconds, st.compute_seconds,
          st.compute_slowdown, st.compute_baseline_seconds,
          st.fell_behind ? " FELL BEHIND: the next save would wait" : "",
          st.checkpoint_cost_seconds);
      if (st.staging_gib_s > 0) {
        absl::StrAppendFormat(&s, "; staging %.2f GiB/s in all",
                              st.staging_gib_s);
      }
    }
    if (st.copy_bytes > 0) {
      absl::StrAppendFormat(
          &s, "%s %s %s in %.3f s of copies, %.2f GiB/s per stream (%s)",
          st.async ? ";" : "",
          st.accelerator == Accelerator::kGpu
              ? (round.phase == Phase::kSave ? "device->host" : "host->device")
              : "staged",
          FormatBytes(st.copy_bytes), st.copy_seconds, st.copy_gib_s,
          st.accelerator != Accelerator::kGpu ? "host memory"
          : st.pinned                         ? "pinned"
                                              : "pageable");
    }
    s += "\n";
  }
}

void AddGoodput(const RunResult& r, bool during_epochs, std::string* out) {
  std::string& s = *out;
  if (auto g = GoodputOf(r)) {
    absl::StrAppendFormat(
        &s,
        "goodput (MTTF %.6g s): checkpoint cost %.3f s (%s), restart %.3f s "
        "(%s)\n",
        g->in.mttf_seconds, g->in.delta_seconds, g->delta_source,
        g->in.restart_seconds, g->restart_source);
    if (g->in.interval_seconds > 0) {
      absl::StrAppendFormat(
          &s, "  at %s %.6g s (cost %.3f s): goodput %.2f%%\n",
          during_epochs ? "the measured interval between saves"
                        : "run.interval",
          g->in.interval_seconds, g->at_interval.cost_seconds,
          100 * g->at_interval.goodput);
    }
    absl::StrAppendFormat(
        &s,
        "  at the optimal interval %.6g s (cost %.3f s): goodput %.2f%%; "
        "Young %.6g s, Daly %.6g s (goodput %.2f%%)\n",
        g->at_optimum.interval_seconds, g->at_optimum.cost_seconds,
        100 * g->at_optimum.goodput, g->young_seconds, g->daly_seconds,
        100 * g->at_daly.goodput);
  }
}

}  // namespace

std::string CheckpointRoundName(Phase phase, int index, bool staged,
                                RoundNameForm form) {
  switch (form) {
    case RoundNameForm::kLog:
      return absl::StrFormat("%s round %d", phase, index);
    case RoundNameForm::kProgress:
      if (staged) return "stage (untimed)";
      break;
    case RoundNameForm::kReport:
      if (staged) return absl::StrCat("stage ", index);
      break;
  }
  return absl::StrFormat("%s %d", phase, index);
}

WorkloadSummary CheckpointSummary() {
  WorkloadSummary s;
  s.round_name = [](const RoundResult& r) {
    return CheckpointRoundName(r.phase, r.index, r.staged,
                               RoundNameForm::kReport);
  };
  s.round_kind = [](const RoundResult& r) {
    return std::string(Name(r.phase));
  };
  s.plan_row = [](const RunResult& r) {
    return std::make_optional(std::make_pair(
        std::string("first run's plan"),
        absl::StrCat(r.model, ", ", r.checkpoint_bytes, " bytes, ",
                     r.world_size, " rank(s), ", r.files, " file(s)")));
  };
  s.head = [](const RunResult& r, std::string* out) {
    absl::StrAppendFormat(
        out,
        "\nckptbench %s: %s, %s per checkpoint, %d rank(s) x %d file(s), "
        "%s\n",
        r.status, r.model, FormatBytes(r.checkpoint_bytes), r.world_size,
        r.thread_count, r.sharding);
  };
  s.figures = [](const RunResult& r, std::string* out) {
    // Per phase for a checkpoint run; its saves' figures in any run (a
    // dataload's are taken during its epochs, whose training they overlap).
    if (r.workload == kCheckpointWorkload) {
      AddPhases(r, out);
    }
    // A run of another workload took these saves inside its rounds (a
    // dataload's epochs): the training they overlapped is that run's.
    const bool during_epochs = r.workload != kCheckpointWorkload;
    AddVisible(r, out);
    AddStaging(r, during_epochs, out);
    AddGoodput(r, during_epochs, out);
  };
  return s;
}

}  // namespace ckpt
