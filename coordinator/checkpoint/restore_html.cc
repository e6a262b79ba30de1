#include "coordinator/checkpoint/restore_html.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/bytes.h"
#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/results.h"
#include "report/draw/svg.h"

namespace ckpt {

std::string ReshardSection(const ReportInput& input) {
  std::string out;
  for (const ReportRun& run : input.runs) {
    if (ReshardOf(*run.result) == nullptr) continue;
    const ReshardResult& rs = *ReshardOf(*run.result);
    // The measured rounds: bytes the nodes read over the bytes needed; and
    // what the last one measured per share: the requests of the loading
    // rank that read it (rank r loads share (r + rank_shift) mod the world
    // size).
    std::vector<std::string> measured;
    std::map<uint64_t, uint64_t> measured_requests;
    const uint64_t world =
        std::max<uint64_t>(1, static_cast<uint64_t>(std::max(0, rs.to_world)));
    for (const RoundResult& round : run.result->rounds) {
      if (!round.resharded) continue;
      measured.push_back(absl::StrFormat("load %d: %.3fx%s", round.index,
                                         round.read_amplification,
                                         round.verified ? ", verified" : ""));
      measured_requests.clear();
      const uint64_t shift =
          static_cast<uint64_t>(std::max(0, round.rank_shift));
      for (const RankResult& k : round.ranks) {
        measured_requests[(k.rank + shift) % world] = k.requests;
      }
    }
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> rank_names;
    BarSeries needed{"needed", SeriesColor(0), {}, {}, {}, {}};
    BarSeries read{"read", SeriesColor(1), {}, {}, {}, {}};
    for (const ReshardRankResult& k : rs.ranks) {
      rank_names.push_back("rank " + std::to_string(k.rank));
      needed.values.push_back(static_cast<double>(k.bytes_needed) / (1 << 20));
      read.values.push_back(static_cast<double>(k.bytes_read) / (1 << 20));
      const auto requests = measured_requests.find(k.rank);
      std::vector<std::string> from;
      for (uint32_t f : k.from_ranks) from.push_back(std::to_string(f));
      rows.push_back({std::to_string(k.rank), std::to_string(k.node),
                      FormatBytes(k.bytes_needed), FormatBytes(k.bytes_read),
                      std::to_string(k.files), std::to_string(k.reads),
                      requests == measured_requests.end()
                          ? ""
                          : std::to_string(requests->second),
                      absl::StrJoin(from, ", ")});
    }
    absl::StrAppend(
        &out, "<h3>", HtmlEscape(run.label), "</h3>\n<p>",
        HtmlEscape(absl::StrFormat(
            "Saved by %d ranks, loaded by %d (load.reshard_reads=%s). Read "
            "amplification %.3fx: %s read for %s needed. Planned in %.1f ms.",
            rs.from_world, rs.to_world, rs.mode, rs.read_amplification,
            FormatBytes(rs.bytes_read), FormatBytes(rs.bytes_needed),
            rs.planning_seconds * 1e3)),
        measured.empty()
            ? ""
            : HtmlEscape(" Measured: " + absl::StrJoin(measured, "; ") + "."),
        "</p>\n",
        BarChart(absl::StrCat("Resharded restore ", run.label,
                              ": bytes per loading rank"),
                 "MiB", rank_names, {needed, read}),
        HtmlTable({"rank", "node", "needed", "read", "files", "reads",
                   "requests (measured)", "from ranks"},
                  rows));
  }
  if (out.empty()) return "";
  return absl::StrCat(
      "<h2>Resharded restores</h2>\n<p>Loads of a checkpoint saved in "
      "another layout (world size, files per rank): each rank read from the "
      "saved files the bytes it owns under the new sharding (ranges), or the "
      "whole saved segments holding them (segments, as PyTorch DCP reads "
      "stored items). Every byte read was checked against the writer's. "
      "Files and reads are the plan's (a read: one contiguous byte range of "
      "a file); requests are what the last resharded load measured for "
      "each rank's share, by the rank that loaded it (with a rank shift, "
      "another): on S3 and GCS a GET per read range of at most the range "
      "size (the size comes from the .metadata, so no HEAD first), and "
      "retries; on file systems read calls.</p>\n",
      out);
}

std::string VisibleSection(const ReportInput& input) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> names;
  BarSeries bars{"time to visible", SeriesColor(0), {}, {}, {}, {}};
  for (const ReportRun& run : input.runs) {
    for (const RoundResult& round : run.result->rounds) {
      const Visibility* seen = VisibilityOf(round);
      if (seen == nullptr) continue;
      const Visibility& v = *seen;
      const std::string who =
          absl::StrCat("node ", v.node, " (", v.host,
                       v.same_node ? ", the writer itself" : "", ")");
      names.push_back(absl::StrCat(input.all_runs > 1 ? run.label + " " : "",
                                   "save ", round.index));
      bars.values.push_back(v.visible ? v.seconds : v.poll_seconds);
      rows.push_back({run.label, absl::StrCat("save ", round.index), who,
                      v.visible
                          ? absl::StrFormat("%.3f s", v.seconds)
                          : absl::StrFormat("NOT visible after %.1f s (no %s)",
                                            v.poll_seconds, v.lacked),
                      std::to_string(v.polls)});
    }
  }
  if (rows.empty()) return "";
  return absl::StrCat(
      "<h2>Time to visible</h2>\n<p>After each save committed, another node "
      "polled its own view of the storage until it listed the step and read "
      "its .metadata back (on FUSE mounts also opened a shard): the wait a "
      "restart there adds before it can load (MLPerf Storage counts it in "
      "recovery). Seconds from the commit's acknowledgement, on the "
      "coordinator's clock.</p>\n",
      BarChart("Time to visible after each save", "seconds", names, {bars}),
      HtmlTable({"run", "round", "polled by", "time to visible", "polls"},
                rows));
}

}  // namespace ckpt
