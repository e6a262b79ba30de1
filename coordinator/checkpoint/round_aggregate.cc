// RoundRunner's summing-up of a round: the nodes' reports into the
// RoundResult (per node, per rank, histograms, CPU, throttling), the
// training-loop view of a save, and the stragglers.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/stats.h"
#include "coordinator/checkpoint/round_runner.h"
#include "coordinator/round/node_sums.h"

namespace ckpt {

namespace {

// Adds `node` to `nodes` once.
void NoteNode(std::vector<int>* nodes, int node) {
  if (std::find(nodes->begin(), nodes->end(), node) == nodes->end()) {
    nodes->push_back(node);
  }
}

// A node's files' mean seconds in each part (and its start lag), against
// the median busy node's, say what set a straggler apart.
struct Parts {
  double lag = 0, data = 0, io = 0, sync = 0;
  int files = 0;
  double Mean(double Parts::*m) const {
    return m == &Parts::lag ? lag : files ? this->*m / files : 0;
  }
};

std::map<int, Parts> PartsByNode(const RoundResult& result) {
  std::map<int, Parts> parts;
  for (const auto& n : result.nodes) parts[n.node].lag = n.start_lag_seconds;
  for (const auto& f : result.files) {
    Parts& p = parts[f.node];
    p.data += f.data;
    p.io += f.io;
    p.sync += f.sync;
    ++p.files;
  }
  return parts;
}

// The part in which `node` was furthest behind the median of `busy`.
std::string WhySlow(int node, std::map<int, Parts>& parts,
                    const std::vector<const NodeResult*>& busy) {
  struct Part {
    double Parts::*m;
    const char* what;
  };
  const Part kParts[] = {{&Parts::lag, "started late"},
                         {&Parts::data, "making or checking bytes"},
                         {&Parts::io, "in storage calls"},
                         {&Parts::sync, "in fsync/close"}};
  std::string reason;
  double most = 0;
  for (const Part& part : kParts) {
    std::vector<double> all;
    for (const auto* n : busy) all.push_back(parts[n->node].Mean(part.m));
    const double mine = parts[node].Mean(part.m), med = MedianOf(all);
    if (mine - med <= most) continue;
    most = mine - med;
    reason = part.m == &Parts::lag
                 ? absl::StrFormat("started %.3f s late (median node %.3f s)",
                                   mine, med)
                 : absl::StrFormat(
                       "its files averaged %.3f s %s (median node %.3f s)",
                       mine, part.what, med);
  }
  return reason;
}

// The node's three files that finished last.
std::vector<std::string> LastFiles(const RoundResult& result, int node) {
  std::vector<const FileRecord*> mine;
  for (const auto& f : result.files) {
    if (f.node == node) mine.push_back(&f);
  }
  std::sort(mine.begin(), mine.end(),
            [](const FileRecord* a, const FileRecord* b) {
              return a->done > b->done;
            });
  std::vector<std::string> out;
  for (size_t k = 0; k < mine.size() && k < 3; ++k) {
    const FileRecord& f = *mine[k];
    out.push_back(absl::StrFormat(
        "%s (rank %d): start %.3f, first byte %.3f, last byte %.3f, done "
        "%.3f s%s",
        f.name, f.rank, f.start, f.first_byte, f.last_byte, f.done,
        f.retries > 0 ? absl::StrFormat(", %d retries", f.retries) : ""));
  }
  return out;
}

}  // namespace

void FindStragglers(RoundResult* result) {
  std::vector<const NodeResult*> busy;
  for (const auto& n : result->nodes) {
    if (n.bytes > 0) busy.push_back(&n);
  }
  if (busy.size() < 2) return;
  // By when each finished on the common clock: a late starter counts.
  auto finish = [](const NodeResult* n) {
    return std::max(0.0, n->start_lag_seconds) + n->seconds;
  };
  std::sort(busy.begin(), busy.end(),
            [&](const NodeResult* a, const NodeResult* b) {
              return finish(a) > finish(b);
            });
  std::vector<double> finishes;
  for (const auto* n : busy) finishes.push_back(finish(n));
  const double median = MedianOf(finishes);
  std::map<int, Parts> parts = PartsByNode(*result);
  for (size_t i = 0; i < busy.size() && i < 3; ++i) {
    Straggler st{busy[i]->node,
                 busy[i]->host,
                 finish(busy[i]),
                 median > 0 ? finish(busy[i]) / median : 0,
                 WhySlow(busy[i]->node, parts, busy),
                 LastFiles(*result, busy[i]->node)};
    result->stragglers.push_back(std::move(st));
  }
}

void RoundRunner::SumUpStaging(const RoundSpec& spec,
                               RoundResult* result) const {
  RoundStaging& st = result->staging;
  st.accelerator = config_.cluster.accelerator;
  st.async = CheckpointOf(config_).async && spec.save && !spec.staged;
  double blocked = 0, durable = 0, worst_after = 0;
  for (const auto& n : result->nodes) {
    const NodeStaging& ns = n.staging;
    st.copy_bytes += ns.copy_bytes;
    st.copy_seconds += ns.copy_seconds;
    st.pinned = st.pinned || ns.pinned;
    st.staged_bytes = std::max(st.staged_bytes, ns.staged_bytes);
    if (!st.async) continue;
    const double lag = std::max(0.0, n.start_lag_seconds);
    blocked = std::max(blocked, lag + ns.blocking_seconds);
    durable = std::max(durable, lag + ns.durable_seconds);
    st.compute_seconds = std::max(st.compute_seconds, ns.compute_seconds);
    st.compute_baseline_seconds =
        std::max(st.compute_baseline_seconds, ns.compute_baseline_seconds);
    // Per node: its training ran slower by this much, and its next save is
    // due run.interval after training resumed: persisting for longer makes
    // that save wait (the configured interval, not the compute as it ran,
    // so the verdict does not depend on how busy the node's CPU was).
    const double slower =
        std::max(0.0, ns.compute_seconds - ns.compute_baseline_seconds);
    const double wait = std::max(0.0, ns.durable_seconds - ns.blocking_seconds -
                                          CheckpointOf(config_).interval);
    if (wait > 0) st.fell_behind = true;
    st.slowdown_seconds = std::max(st.slowdown_seconds, slower);
    worst_after = std::max(worst_after, slower + wait);
    if (ns.compute_baseline_seconds > 0) {
      st.compute_slowdown =
          std::max(st.compute_slowdown,
                   ns.compute_seconds / ns.compute_baseline_seconds);
    }
  }
  if (st.copy_seconds > 0) {
    st.copy_gib_s =
        static_cast<double>(st.copy_bytes) / (1 << 30) / st.copy_seconds;
  }
  if (!st.async) {
    if (spec.save) st.checkpoint_cost_seconds = result->seconds;
    return;
  }
  // The save's own time ends when its last byte is durable and committed,
  // not when the training interval it overlapped ends.
  st.blocking_seconds = blocked;
  st.persist_seconds = std::max(0.0, durable - blocked);
  if (blocked > 0) {
    st.staging_gib_s = static_cast<double>(st.copy_bytes) / (1 << 30) / blocked;
  }
  result->seconds = durable + result->commit_seconds;
  st.checkpoint_cost_seconds = blocked + worst_after;
}

namespace {

// A node's files on the round's common clock (its start lag added); each
// file's parts summed into its rank, among the node's ranks (the last of
// result->ranks).
void AddFiles(const PhaseOutcome& rep, int node, RoundResult* result) {
  const double lag = std::max(0.0, rep.start_lag_seconds);
  for (FileRecord fr : rep.files) {
    fr.node = node;
    fr.start += lag;
    fr.first_byte = fr.first_byte < 0 ? -1 : fr.first_byte + lag;
    fr.last_byte += lag;
    fr.done += lag;
    for (size_t k = result->ranks.size(); k-- > 0;) {
      RankResult& rk = result->ranks[k];
      if (rk.node != node) break;  // this report's ranks are last
      if (rk.rank != fr.rank) continue;
      rk.data_seconds += fr.data;
      rk.io_seconds += fr.io;
      rk.sync_seconds += fr.sync;
      rk.requests += fr.requests;
      rk.retries += fr.retries;
      break;
    }
    result->files.push_back(std::move(fr));
  }
}

// The barrier: every rank waits for the round's last one (on the common
// clock).
void SetRankWaits(RoundResult* result) {
  double last = 0;
  std::map<int, double> lag_of;
  for (const auto& n : result->nodes) {
    lag_of[n.node] = std::max(0.0, n.start_lag_seconds);
  }
  for (const auto& k : result->ranks) {
    last = std::max(last, lag_of[k.node] + k.seconds);
  }
  for (auto& k : result->ranks) {
    k.wait_seconds = std::max(0.0, last - (lag_of[k.node] + k.seconds));
  }
}

}  // namespace

void RoundRunner::AddRanks(const PhaseOutcome& rep, const RoundSpec& spec,
                           NodeResult* nr, RoundResult* result) const {
  nr->first_done_seconds = 1e300;
  for (const RankOutcome& r : rep.ranks) {
    RankResult rr;
    rr.rank = r.rank;
    rr.node = nr->node;
    rr.bytes = r.bytes;
    rr.first_byte_seconds = r.first_byte_seconds;
    rr.seconds = r.done_seconds;
    rr.verified = r.verified;
    if (result->phase == Phase::kLoad && spec.reshard != nullptr) {
      // The lowest saving rank it read from, and every node it read.
      const int per_node = spec.reshard->from_ranks_per_node;
      bool first = true;
      for (const auto& f : ReshardShare(*spec.reshard, rr.rank).files) {
        const uint32_t from = spec.reshard->saved[f.saved].rank;
        const int from_node = static_cast<int>(from) / per_node;
        if (first || from < rr.read_rank) {
          rr.read_rank = from;
          rr.read_from_node = from_node;
          first = false;
        }
        NoteNode(&nr->read_from_nodes, from_node);
      }
    } else if (result->phase == Phase::kLoad) {
      const RankPlan& src = ReadRank(rr.rank);
      rr.read_rank = src.rank;
      rr.read_from_node = static_cast<int>(src.node);
      NoteNode(&nr->read_from_nodes, rr.read_from_node);
    }
    result->checked_bytes += r.checked_bytes;
    result->checked_files += r.checked_files;
    result->ranks.push_back(rr);
    nr->ranks.push_back(rr.rank);
    nr->bytes += rr.bytes;
    nr->last_done_seconds = std::max(nr->last_done_seconds, rr.seconds);
    nr->first_done_seconds = std::min(nr->first_done_seconds, rr.seconds);
  }
  if (rep.ranks.empty()) nr->first_done_seconds = 0;
}

void RoundRunner::Aggregate(const std::vector<PhaseOutcome>& reports,
                            const RoundSpec& spec, RoundResult* result) const {
  double min_lag = 1e300, max_lag = -1e300;
  double busy_sum = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    const auto& rep = reports[i];
    NodeResult nr;
    nr.node = nodes()[i]->index();
    nr.host = nodes()[i]->host();
    AddRanks(rep, spec, &nr, result);
    AddFiles(rep, nr.node, result);
    FillNode(rep, &nr);
    min_lag = std::min(min_lag, nr.start_lag_seconds);
    max_lag = std::max(max_lag, nr.start_lag_seconds);
    busy_sum += nr.host_cpu_busy;
    AddNode(rep, nr, result);
    result->nodes.push_back(std::move(nr));
  }
  if (!reports.empty()) {
    result->start_spread_seconds = max_lag - min_lag;
    result->host_cpu_busy = busy_sum / static_cast<double>(reports.size());
  }
  SetRankWaits(result);
  FindStragglers(result);
  std::sort(
      result->ranks.begin(), result->ranks.end(),
      [](const RankResult& a, const RankResult& b) { return a.rank < b.rank; });
}

}  // namespace ckpt
