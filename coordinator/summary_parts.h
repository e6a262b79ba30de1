// A workload's parts of the terminal summary (coordinator/summary.h),
// registered with it in the WorkloadRegistry: the line that says what ran
// (for a run of that workload), its tables after the rounds' and its
// figures after the nodes' (for any run whose result carries them: a
// dataload run's checkpoint saves are the checkpoint's to show). The
// summary itself holds what every workload's has: the storage, a line per
// round, the nodes and clocks, notes, leftovers and errors. Every string
// that came from a node, a server or a listing goes through
// EscapeForTerminal (common/text.h): a newline or an escape sequence in one
// cannot forge a line of the table.
#ifndef CKPTBENCH_COORDINATOR_SUMMARY_PARTS_H_
#define CKPTBENCH_COORDINATOR_SUMMARY_PARTS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "common/text.h"
#include "coordinator/report_parts.h"
#include "coordinator/results.h"

namespace ckpt {

using SummaryPart = std::function<void(const RunResult&, std::string*)>;

struct WorkloadSummary {
  SummaryPart head;     // its runs': after a blank line, "ckptbench ok: ..."
  SummaryPart tables;   // after the rounds' table, what the result has of it
  SummaryPart figures;  // after the nodes', what the result has of it
  // How its rounds are named (RoundName: the report's timeline, with the
  // report's registry; the short-round warning and the checkpoint's own
  // report sections, with the built-in one; unset: "<workload> <index>"),
  // and the summary's rounds table's first column (unset: the workload's
  // name).
  std::function<std::string(const RoundResult&)> round_name;
  std::function<std::string(const RoundResult&)> round_kind;
  // What a run of it ran, as a row of the HTML report's overview (shown
  // for the report's first run): its label and its text; none, or unset:
  // no row.
  std::function<std::optional<std::pair<std::string, std::string>>(
      const RunResult&)>
      plan_row;
  // Its table of a sweep's points, after the shared one at the end of
  // `ckptbench sweep` (given what a report part is given); "" when the
  // sweep's results have nothing of it.
  std::function<std::string(const ReportInput&)> sweep_table;
};

// Milliseconds of a latency in nanoseconds.
inline double LatencyMs(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_SUMMARY_PARTS_H_
