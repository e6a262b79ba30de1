#include "report/restore_sections.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/bytes.h"
#include "coordinator/results.h"
#include "report/svg.h"

namespace ckpt {
namespace {

// A hand-edited result may hold anything: shown, never thrown on.
uint64_t U64(const nlohmann::json& j, const char* key) {
  const auto& v = JsonAt(j, key);
  return v.is_number_unsigned() ? v.get<uint64_t>() : 0;
}

double Num(const nlohmann::json& j, const char* key) {
  const auto& v = JsonAt(j, key);
  return v.is_number() ? v.get<double>() : 0;
}

std::string Text(const nlohmann::json& j, const char* key) {
  const auto& v = JsonAt(j, key);
  return v.is_string() ? v.get<std::string>() : "";
}

}  // namespace

std::string ReshardSection(const SweepData& data) {
  std::string out;
  for (const auto& run : data.runs) {
    if (!run.has_result) continue;
    const auto& rs = JsonAt(run.result, "reshard");
    if (!rs.is_object()) continue;
    // The measured rounds: bytes the nodes read over the bytes needed; and
    // what the last one measured per share: the requests of the loading
    // rank that read it (rank r loads share (r + rank_shift) mod the world
    // size).
    std::vector<std::string> measured;
    std::map<uint64_t, uint64_t> measured_requests;
    const uint64_t world = std::max<uint64_t>(1, U64(rs, "to_world"));
    for (const auto& round : JsonAt(run.result, "rounds")) {
      if (!JsonAt(round, "resharded").is_boolean() ||
          !round.value("resharded", false)) {
        continue;
      }
      measured.push_back(
          absl::StrFormat("load %d: %.3fx%s", round.value("index", 0),
                          Num(round, "read_amplification"),
                          round.value("verified", false) ? ", verified" : ""));
      measured_requests.clear();
      const uint64_t shift = U64(round, "rank_shift");
      for (const auto& k : JsonAt(round, "ranks")) {
        if (JsonAt(k, "requests").is_number()) {
          measured_requests[(U64(k, "rank") + shift) % world] =
              U64(k, "requests");
        }
      }
    }
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> rank_names;
    BarSeries needed{"needed", SeriesColor(0), {}, {}, {}, {}};
    BarSeries read{"read", SeriesColor(1), {}, {}, {}, {}};
    for (const auto& k : JsonAt(rs, "ranks")) {
      rank_names.push_back("rank " + std::to_string(U64(k, "rank")));
      needed.values.push_back(static_cast<double>(U64(k, "bytes_needed")) /
                              (1 << 20));
      read.values.push_back(static_cast<double>(U64(k, "bytes_read")) /
                            (1 << 20));
      const auto requests = measured_requests.find(U64(k, "rank"));
      std::vector<std::string> from;
      for (const auto& f : JsonAt(k, "from_ranks")) {
        from.push_back(f.is_number() ? std::to_string(f.get<int64_t>()) : "?");
      }
      rows.push_back(
          {std::to_string(U64(k, "rank")), std::to_string(U64(k, "node")),
           FormatBytes(U64(k, "bytes_needed")),
           FormatBytes(U64(k, "bytes_read")), std::to_string(U64(k, "files")),
           std::to_string(U64(k, "reads")),
           requests == measured_requests.end()
               ? ""
               : std::to_string(requests->second),
           absl::StrJoin(from, ", ")});
    }
    absl::StrAppend(
        &out, "<h3>", HtmlEscape(RunLabel(data, run)), "</h3>\n<p>",
        HtmlEscape(absl::StrFormat(
            "Saved by %d ranks, loaded by %d (load.reshard_reads=%s). Read "
            "amplification %.3fx: %s read for %s needed. Planned in %.1f ms.",
            static_cast<int>(Num(rs, "from_world")),
            static_cast<int>(Num(rs, "to_world")), Text(rs, "reads"),
            Num(rs, "read_amplification"), FormatBytes(U64(rs, "bytes_read")),
            FormatBytes(U64(rs, "bytes_needed")),
            Num(rs, "planning_seconds") * 1e3)),
        measured.empty()
            ? ""
            : HtmlEscape(" Measured: " + absl::StrJoin(measured, "; ") + "."),
        "</p>\n",
        BarChart(absl::StrCat("Resharded restore ", RunLabel(data, run),
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
      "another): on S3 a HEAD per file (GCS: a metadata GET), a GET per "
      "read range of at most the range size, and retries; on file systems "
      "read calls.</p>\n",
      out);
}

std::string VisibleSection(const SweepData& data) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> names;
  BarSeries bars{"time to visible", SeriesColor(0), {}, {}, {}, {}};
  for (const auto& run : data.runs) {
    if (!run.has_result) continue;
    for (const auto& round : JsonAt(run.result, "rounds")) {
      const auto& v = JsonAt(round, "time_to_visible");
      if (!v.is_object()) continue;
      const bool visible =
          JsonAt(v, "visible").is_boolean() && v.value("visible", false);
      const std::string who = absl::StrCat(
          "node ", static_cast<int>(Num(v, "node")), " (", Text(v, "host"),
          JsonAt(v, "same_node").is_boolean() && v.value("same_node", false)
              ? ", the writer itself"
              : "",
          ")");
      names.push_back(
          absl::StrCat(data.runs.size() > 1 ? RunLabel(data, run) + " " : "",
                       "save ", round.value("index", 0)));
      bars.values.push_back(visible ? Num(v, "seconds")
                                    : Num(v, "poll_seconds"));
      rows.push_back(
          {RunLabel(data, run), absl::StrCat("save ", round.value("index", 0)),
           who,
           visible ? absl::StrFormat("%.3f s", Num(v, "seconds"))
                   : absl::StrFormat("NOT visible after %.1f s (no %s)",
                                     Num(v, "poll_seconds"), Text(v, "lacked")),
           std::to_string(U64(v, "polls"))});
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

std::string StragglerSection(const SweepData& data) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& run : data.runs) {
    if (!run.has_result) continue;
    for (const auto& round : JsonAt(run.result, "rounds")) {
      const auto& st = JsonAt(round, "stragglers");
      if (!st.is_array() || st.empty() || !st[0].is_object()) continue;
      const auto& s0 = st[0];
      if (Num(s0, "ratio_to_median") < kStragglerRatio) continue;
      std::vector<std::string> files;
      for (const auto& f : JsonAt(s0, "slowest_files")) {
        if (f.is_string()) files.push_back(f.get<std::string>());
      }
      rows.push_back(
          {RunLabel(data, run),
           absl::StrCat(round.value("staged", false)
                            ? std::string("stage")
                            : round.value("phase", std::string()),
                        " ", round.value("index", 0)),
           absl::StrCat("node ", static_cast<int>(Num(s0, "node_index")), " (",
                        Text(s0, "host"), ")"),
           absl::StrFormat("%.3f s, %.2fx the median node", Num(s0, "seconds"),
                           Num(s0, "ratio_to_median")),
           Text(s0, "reason"), absl::StrJoin(files, "; ")});
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
