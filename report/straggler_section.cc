#include "report/straggler_section.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/results.h"
#include "report/draw/svg.h"

namespace ckpt {

std::string StragglerSection(const SweepData& data) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& run : data.runs) {
    if (!run.has_result) continue;
    for (const RoundResult& round : run.result.rounds) {
      if (round.stragglers.empty()) continue;
      const Straggler& s0 = round.stragglers[0];
      if (s0.ratio_to_median < kStragglerRatio) continue;
      rows.push_back({RunLabel(data, run), RoundName(round),
                      absl::StrCat("node ", s0.node, " (", s0.host, ")"),
                      absl::StrFormat("%.3f s, %.2fx the median node",
                                      s0.seconds, s0.ratio_to_median),
                      s0.reason, absl::StrJoin(s0.files, "; ")});
    }
  }
  if (rows.empty()) return "";
  return absl::StrCat(
      "<h2>Stragglers</h2>\n<p>Rounds whose slowest node took at least ",
      absl::StrFormat("%.1f", kStragglerRatio),
      "x the median node's time: what set it apart from the median node "
      "(start lag, or its files' mean time making or checking bytes, in "
      "storage calls, in fsync/close) and its slowest files, on the "
      "coordinator's clock (seconds since the round's common start).</p>\n",
      HtmlTable({"run", "round", "straggler", "time", "why", "slowest files"},
                rows));
}

}  // namespace ckpt
