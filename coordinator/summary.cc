#include "coordinator/summary.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/text.h"
#include "coordinator/result_foreign.h"
#include "coordinator/summary_parts.h"

namespace ckpt {

std::string RoundName(const RoundResult& r) {
  return RoundName(r, WorkloadRegistry::BuiltIn());
}

std::string RoundName(const RoundResult& r, const WorkloadRegistry& registry) {
  const WorkloadSummary* parts = registry.SummaryOf(r.workload);
  if (parts != nullptr && parts->round_name) return parts->round_name(r);
  // Maybe another build's workload: its name escaped.
  return absl::StrFormat("%s %d", EscapeForTerminal(r.workload), r.index);
}

namespace {

// One line per round: its time, rate, latency, CPU, cache and status.
// A round's first column: its workload's kind of round (the checkpoint's
// phase) or its name; another build's workload's name escaped, in 6 bytes;
// a round of a workload `registry` has no summary of, its phase.
std::string RoundKind(const RoundResult& round,
                      const WorkloadRegistry& registry) {
  if (!round.foreign.workload.empty()) {
    return EscapeForTerminal(round.foreign.workload.substr(0, 6));
  }
  const WorkloadSummary* parts = registry.SummaryOf(round.workload);
  if (parts == nullptr) return std::string(Name(round.phase));
  return parts->round_kind ? parts->round_kind(round) : round.workload;
}

void AddRounds(const RunResult& r, const WorkloadRegistry& registry,
               std::string* out) {
  std::string& s = *out;
  absl::StrAppendFormat(&s,
                        "%-6s %-5s %-5s %11s %9s %10s %9s %9s %9s %8s %6s  "
                        "%-16s %s\n",
                        "phase", "round", "step", "bytes", "seconds", "MiB/s",
                        "op p50ms", "op p99ms", "op maxms", "cpu s", "host%",
                        "cache", "status");
  for (const auto& round : r.rounds) {
    const char* op = round.phase == Phase::kSave ? "write" : "read";
    auto it = round.ops.find(op);
    Histogram empty;
    const Histogram& h = it == round.ops.end() ? empty : it->second;
    std::string label = round.staged ? "stage" : std::to_string(round.index);
    std::string status(Name(round.status));
    if (round.phase == Phase::kLoad && round.status == RunStatus::kOk &&
        round.verified)
      status = "verified";
    if (!round.flags.empty())
      absl::StrAppend(&status, " [", JoinNames(round.flags, ","), "]");
    absl::StrAppendFormat(
        &s,
        "%-6s %-5s %-5d %11s %9.3f %10.1f %9.2f %9.2f %9.2f %8.2f %5.0f%%  "
        "%-16s %s\n",
        RoundKind(round, registry), label, round.step, FormatBytes(round.bytes),
        round.seconds, round.throughput_mib_s, LatencyMs(h.Percentile(0.5)),
        LatencyMs(h.Percentile(0.99)), LatencyMs(h.max()),
        round.cpu_user_seconds + round.cpu_system_seconds,
        100 * round.host_cpu_busy,
        round.phase == Phase::kLoad ? round.cache.method : "-", status);
  }
}

// Multinode: each round's start spread and slowest nodes, the clocks.
void AddNodes(const RunResult& r, std::string* out) {
  std::string& s = *out;
  if (r.num_nodes > 1) {
    s += "\nper round: start spread across nodes, slowest nodes vs the median "
         "node\n";
    for (const auto& round : r.rounds) {
      std::string slow;
      for (const auto& st : round.stragglers) {
        absl::StrAppendFormat(&slow, "  node %d (%s) %.3f s %.2fx", st.node,
                              EscapeForTerminal(st.host), st.seconds,
                              st.ratio_to_median);
      }
      absl::StrAppendFormat(
          &s, "%-6s %-5s spread %7.3f ms %s\n", round.phase,
          round.staged ? "stage" : std::to_string(round.index),
          round.start_spread_seconds * 1e3, slow);
      // A clear straggler (>= kStragglerRatio x the median node): what set
      // it apart, and its slowest file.
      if (!round.stragglers.empty()) {
        const Straggler& st = round.stragglers.front();
        if (st.ratio_to_median >= kStragglerRatio && !st.reason.empty()) {
          absl::StrAppendFormat(
              &s, "%-6s %-5s straggler node %d (%s): %s%s\n", "", "", st.node,
              EscapeForTerminal(st.host), EscapeForTerminal(st.reason),
              st.files.empty()
                  ? ""
                  : "; slowest file " + EscapeForTerminal(st.files.front()));
        }
      }
    }
    s += "clocks:";
    for (const auto& c : r.clocks) {
      absl::StrAppendFormat(&s, "  node %d %+.3f ms (rtt %.3f ms)", c.node,
                            c.offset_ms, c.rtt_ms);
    }
    s += "\n";
  }
}

}  // namespace

std::string SummaryTable(const RunResult& r, const WorkloadRegistry& registry) {
  std::string s;
  const std::string& workload = r.workload;
  const WorkloadSummary* parts = registry.SummaryOf(workload);
  if (parts != nullptr && parts->head) {
    parts->head(r, &s);
  } else {
    absl::StrAppendFormat(&s, "\nckptbench %s: %s on %d node(s)\n", r.status,
                          EscapeForTerminal(workload), r.num_nodes);
  }
  absl::StrAppendFormat(&s, "storage: %s (%s %s)\n",
                        EscapeForTerminal(r.environment.storage_kind),
                        EscapeForTerminal(r.environment.filesystem),
                        EscapeForTerminal(r.environment.mount_point));
  AddRounds(r, registry, &s);
  registry.ForEachSummary([&](const WorkloadSummary& w) {
    if (w.tables) w.tables(r, &s);
  });
  AddNodes(r, &s);
  s += "\n";
  registry.ForEachSummary([&](const WorkloadSummary& w) {
    if (w.figures) w.figures(r, &s);
  });
  if (parts == nullptr) {
    absl::StrAppendFormat(&s,
                          "note: this build has no summary of workload '%s' "
                          "beyond its rounds\n",
                          EscapeForTerminal(workload));
  }
  for (const auto& n : r.notes) {
    absl::StrAppendFormat(&s, "note: %s\n", EscapeForTerminal(n));
  }
  for (const std::string& line : ForeignLines(r)) {  // escaped there
    absl::StrAppendFormat(&s, "note: read back: %s\n", line);
  }
  for (const auto& n : r.leftovers) {
    absl::StrAppendFormat(&s, "left behind: %s\n", EscapeForTerminal(n));
  }
  for (const auto& e : r.errors) {
    absl::StrAppendFormat(&s, "error: %s\n", EscapeForTerminal(e));
  }
  return s;
}

}  // namespace ckpt
