// The serve workload's parts of the terminal summary: what ran and on what
// model, then per load round each replica's times (headers, first tensor
// byte, last rank done) and the spread of its ranks.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/bytes.h"
#include "common/text.h"
#include "coordinator/serving/serve_results.h"
#include "coordinator/serving/serve_round.h"
#include "coordinator/serving/serve_run.h"

namespace ckpt {
namespace {

void AddModel(const ServingModelResult& m, std::string* out) {
  if (m.source == DatasetSource::kListed) {
    absl::StrAppendFormat(out,
                          "model: %s, listed: %d files, %d tensors, %s; not "
                          "made by ckptbench: its bytes were read, not "
                          "verified\n",
                          EscapeForTerminal(m.uri), m.files, m.tensors,
                          FormatBytes(m.bytes));
    return;
  }
  if (m.removed) {
    absl::StrAppendFormat(out, "model: %s, %s in %s: removed, %d files\n",
                          EscapeForTerminal(m.uri), EscapeForTerminal(m.preset),
                          m.dtype, m.files);
    return;
  }
  absl::StrAppendFormat(out, "model: %s, %s in %s, %d files, %s",
                        EscapeForTerminal(m.uri), EscapeForTerminal(m.preset),
                        m.dtype, m.files, FormatBytes(m.bytes));
  if (m.reused) {
    *out += ", made before (its manifest matched): reused\n";
  } else if (m.written_files > 0) {
    absl::StrAppendFormat(out, ", made by this run: %d files, %s in %.3f s\n",
                          m.written_files, FormatBytes(m.written_bytes),
                          m.written_seconds);
  } else {
    *out += "\n";
  }
}

// A load round's fleet, when it has several replicas: each one's time to
// loaded from its own start, the whole fleet's from the first start, and
// the slowest with why (escaped: a result file read back is not trusted).
void AddFleet(const RoundResult& round, const ReplicaLoadResult& load,
              std::string* out) {
  if (load.replicas.size() < 2) return;
  const ReplicaLoadResult::Fleet& f = load.fleet;
  absl::StrAppendFormat(
      out,
      "%-8s fleet of %d: loaded p50 %.3f s, p90 %.3f s, max %.3f s, each "
      "from its own start; all loaded %.3f s after the first start\n",
      ServeRoundName(round), load.replicas.size(), f.loaded_p50_seconds,
      f.loaded_p90_seconds, f.loaded_max_seconds, f.all_loaded_seconds);
  for (const ReplicaLoadResult::Fleet::Slow& s : f.slowest) {
    absl::StrAppendFormat(out, "%-8s   slow: node %d, %.3f s: %s\n", "", s.node,
                          s.loaded_seconds, EscapeForTerminal(s.why));
  }
}

// Replicas that share a host share its page cache: what each found cached.
void AddSharedHosts(const ReplicaLoadResult& load, std::string* out) {
  std::map<std::string, std::vector<const ReplicaLoadResult::Replica*>> hosts;
  for (const ReplicaLoadResult::Replica& p : load.replicas) {
    if (!p.host.empty()) hosts[p.host].push_back(&p);
  }
  for (const auto& [host, on] : hosts) {
    if (on.size() < 2) continue;
    std::vector<std::string> each;
    for (const ReplicaLoadResult::Replica* p : on) {
      each.push_back(absl::StrFormat(
          "node %d %d%% at its start, %d%% of its "
          "reads",
          p->node, load.CachedAtStartPercent(*p), load.CachedPercent(*p)));
    }
    absl::StrAppendFormat(
        out, "%-8s   host %s: %d replicas share its page cache; cached: %s\n",
        "", EscapeForTerminal(host), on.size(), absl::StrJoin(each, ", "));
  }
}

// The objects the store throttled, most first (at most 3): the hot ones.
void AddHotObjects(const ReplicaLoadResult& load, std::string* out) {
  std::vector<std::string> hot;
  for (const ReplicaLoadResult::HotObject& h : load.objects) {
    if (h.throttles == 0 || hot.size() == 3) break;
    hot.push_back(
        absl::StrFormat("%s %d throttles of %d requests (%d of %d replicas)",
                        EscapeForTerminal(h.name), h.throttles, h.requests,
                        h.throttled_replicas, h.replicas));
  }
  if (hot.empty()) return;
  absl::StrAppendFormat(out, "%-8s   throttled objects: %s\n", "",
                        absl::StrJoin(hot, "; "));
}

void AddLoads(const RunResult& r, std::string* out) {
  bool any = false;
  for (const RoundResult& round : r.rounds) {
    const ReplicaLoadResult* load = ReplicaLoadOf(round);
    if (load == nullptr) continue;
    if (!any) {
      absl::StrAppendFormat(
          out, "\n%-8s %5s %8s %10s %10s %10s %10s %9s %9s %10s  %s\n", "round",
          "node", "start s", "headers s", "1st byte s", "load s", "MiB/s",
          "requests", "rank sd s", "cached", "how");
      any = true;
    }
    for (const ReplicaLoadResult::Replica& p : load->replicas) {
      // The ranks' spread: their last bytes' standard deviation.
      double sum = 0, sq = 0;
      int n = 0;
      for (const ReplicaLoadResult::Rank& k : load->rank_loads) {
        if (k.node != p.node) continue;
        sum += k.last_byte_seconds;
        sq += k.last_byte_seconds * k.last_byte_seconds;
        ++n;
      }
      const double mean = n > 0 ? sum / n : 0;
      const double sd =
          n > 1 ? std::sqrt(std::max(0.0, sq / n - mean * mean)) : 0;
      const std::string copied =
          load->read_mode == ServeReadMode::kDownload
              ? absl::StrFormat(" (copied in %.3f s, %d reads)",
                                p.download_seconds, p.download_requests)
              : "";
      // An object store's retries and throttles, where there were any.
      const std::string retried =
          p.retries + p.throttles > 0
              ? absl::StrFormat(", %d retries, %d throttles", p.retries,
                                p.throttles)
              : "";
      absl::StrAppendFormat(
          out,
          "%-8s %5d %8.3f %10.3f %10.3f %10.3f %10.1f %9d %9.3f %4d%%/%3d%%  "
          "%s%s, %s x %d%s%s%s\n",
          ServeRoundName(round), p.node, p.start_seconds, p.headers_seconds,
          p.first_byte_seconds, p.load_seconds, p.mib_per_second, p.requests,
          sd, load->CachedAtStartPercent(p), load->CachedPercent(p),
          load->read_mode, copied, load->split, load->ranks,
          load->verified ? ", verified" : ", unverified", load->HeldText(),
          retried);
    }
    AddFleet(round, *load, out);
    AddSharedHosts(*load, out);
    AddHotObjects(*load, out);
  }
  if (any) {
    *out +=
        "start s: the replica's start (serve.stagger); headers s: every rank "
        "read every file's header; 1st byte s: the first tensor byte in; "
        "load s: the last rank done; all from the round's start; MiB/s from "
        "the replica's own start; cached: of the model's files in the host's "
        "page cache at the replica's start (another replica's reads, an "
        "earlier load's) / of its reads there when they were made (with the "
        "kernel's read-ahead of its own ranks' reads); download: the copy "
        "to the node first, then the headers and tensors read from it, "
        "requests its page faults, cached the copy's source reads\n";
  }
}

}  // namespace

WorkloadSummary ServeSummary() {
  WorkloadSummary s;
  s.head = [](const RunResult& r, std::string* out) {
    // The replicas as the loads had them (a run in process has no
    // num_nodes of its own).
    size_t replicas = static_cast<size_t>(r.num_nodes);
    uint32_t ranks = static_cast<uint32_t>(r.ranks_per_node);
    for (const RoundResult& round : r.rounds) {
      if (const ReplicaLoadResult* load = ReplicaLoadOf(round)) {
        replicas = load->replicas.size();
        ranks = load->ranks;
      }
    }
    absl::StrAppendFormat(
        out, "\nckptbench %s: serve, %d replica(s) of %d rank(s)\n", r.status,
        replicas, ranks);
    if (const ServingModelResult* m = ServingModelOf(r)) AddModel(*m, out);
  };
  s.tables = AddLoads;
  s.round_name = ServeRoundName;
  s.round_kind = [](const RoundResult& r) {
    return std::string(r.phase == Phase::kLoad ? "load" : "model");
  };
  s.plan_row = [](const RunResult& r)
      -> std::optional<std::pair<std::string, std::string>> {
    const ServingModelResult* m = ServingModelOf(r);
    if (m == nullptr) return std::nullopt;
    return std::make_pair(
        std::string("model"),
        absl::StrFormat("%s: %s, %d files, %s", EscapeForTerminal(m->uri),
                        m->source == DatasetSource::kListed
                            ? std::string("listed")
                            : EscapeForTerminal(m->preset),
                        m->files, FormatBytes(m->bytes)));
  };
  return s;
}

}  // namespace ckpt
