// The serve workload's section of the HTML report: per run, each load
// round's replicas (headers, first tensor byte, last rank done, MiB/s,
// requests) and, for the first load of the first run that has one, each
// rank's reads on a timeline from its first byte to its last.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/serving/serve_results.h"
#include "coordinator/serving/serve_round.h"
#include "coordinator/serving/serve_run.h"
#include "report/draw/report_format.h"
#include "report/draw/svg.h"

namespace ckpt {

std::string ReplicaLoadSection(const ReportInput& input) {
  std::vector<std::vector<std::string>> rows;
  std::string timeline;
  for (const ReportRun& run : input.runs) {
    for (const RoundResult& round : run.result->rounds) {
      const ReplicaLoadResult* load = ReplicaLoadOf(round);
      if (load == nullptr) continue;
      const std::string how = absl::StrCat(
          std::string(Name(load->read_mode)), ", ",
          std::string(Name(load->split)), " x ", load->ranks,
          load->verified ? ", verified" : ", unverified", load->HeldText());
      for (const ReplicaLoadResult::Replica& p : load->replicas) {
        const std::string copied =
            load->read_mode == ServeReadMode::kDownload
                ? absl::StrCat(", copied in ", Fixed(p.download_seconds, 3),
                               " s")
                : "";
        rows.push_back({run.label, ServeRoundName(round), absl::StrCat(p.node),
                        how + copied, Fixed(p.start_seconds, 3),
                        Fixed(p.headers_seconds, 3),
                        Fixed(p.first_byte_seconds, 3),
                        Fixed(p.load_seconds, 3), Fixed(p.mib_per_second, 1),
                        absl::StrCat(p.requests),
                        absl::StrCat(p.retries, " / ", p.throttles),
                        absl::StrCat(load->CachedAtStartPercent(p), "% / ",
                                     load->CachedPercent(p), "%"),
                        p.host});
      }
      if (!timeline.empty()) continue;
      std::vector<TimelineRow> ranks;
      for (const ReplicaLoadResult::Rank& k : load->rank_loads) {
        ranks.push_back({absl::StrCat("node ", k.node, " rank ", k.rank),
                         k.first_byte_seconds, k.last_byte_seconds, -1,
                         SeriesColor(static_cast<size_t>(k.node))});
      }
      timeline = Timeline(
          absl::StrCat(run.label, ", ", ServeRoundName(round),
                       ": each rank from its first tensor byte to its last"),
          "seconds from the round's start", ranks);
    }
  }
  if (rows.empty()) return "";
  return absl::StrCat(
      "<section id=\"serving\"><h2>Serving replicas: the model's load</h2>\n",
      "<p>Every node is one replica; each of its ranks reads its share of "
      "the model at once, from the replica's start (serve.stagger apart). "
      "Start, headers (every file's header read), first byte (the first "
      "tensor byte in) and load (the last rank done) are from the round's "
      "start. Page cache: of the model's files in the host's page cache at "
      "the replica's start (another replica's reads on the host, an earlier "
      "load's), and of its reads there when they were made (with the "
      "kernel's read-ahead of its own ranks' reads).</p>\n",
      HtmlTable({"run", "round", "node", "how", "start s", "headers s",
                 "first byte s", "load s", "MiB/s", "requests",
                 "retries / throttles", "page cache: start / reads", "host"},
                rows),
      timeline, "</section>\n");
}

}  // namespace ckpt
