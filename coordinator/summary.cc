#include "coordinator/summary.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/bytes.h"
#include "common/stats.h"
#include "common/text.h"

namespace ckpt {
namespace {

double Ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

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

std::string RoundName(const RoundResult& r) {
  if (r.workload != Workload::kCheckpoint) {
    return absl::StrFormat("%s %d", r.workload, r.index);
  }
  return CheckpointRoundName(r.phase, r.index, r.staged,
                             RoundNameForm::kReport);
}

PhaseSummary RunResult::Summarize(Phase phase) const {
  std::vector<double> secs, rates;
  std::map<RoundFlag, int> flags;
  uint64_t bytes = 0;
  double total = 0;
  for (const auto& r : rounds) {
    if (r.workload != Workload::kCheckpoint || r.phase != phase || r.staged ||
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

std::optional<GoodputResult> RunResult::Goodput() const {
  if (mttf_seconds <= 0) return std::nullopt;
  std::vector<double> costs, persists, loads, visible;
  bool async = false;
  for (const auto& r : rounds) {
    // A dataload epoch is no restart's load.
    if (r.staged || r.status != RunStatus::kOk ||
        r.workload != Workload::kCheckpoint) {
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
      if (r.visible.measured) visible.push_back(r.visible.seconds);
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
  in.mttf_seconds = mttf_seconds;
  in.interval_seconds = interval_seconds;
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

namespace {

std::string E(const std::string& text) { return EscapeForTerminal(text); }

// One line per round: its time, rate, latency, CPU, cache and status.
void AddRounds(const RunResult& r, std::string* out) {
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
        round.workload == Workload::kCheckpoint ? Name(round.phase)
                                                : Name(round.workload),
        label, round.step, FormatBytes(round.bytes), round.seconds,
        round.throughput_mib_s, Ms(h.Percentile(0.5)), Ms(h.Percentile(0.99)),
        Ms(h.max()), round.cpu_user_seconds + round.cpu_system_seconds,
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
                              E(st.host), st.seconds, st.ratio_to_median);
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
              E(st.host), E(st.reason),
              st.files.empty() ? "" : "; slowest file " + E(st.files.front()));
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

// Per phase: the timed rounds' spread and rate, and what flagged them.
void AddPhases(const RunResult& r, std::string* out) {
  std::string& s = *out;
  if (r.workload != Workload::kCheckpoint) return;  // their own tables
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
    if (round.phase != Phase::kSave || round.staged ||
        !round.visible.measured) {
      continue;
    }
    node = round.visible.node;
    same = round.visible.same_node;
    if (round.visible.visible) {
      v.push_back(round.visible.seconds);
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
void AddStaging(const RunResult& r, std::string* out) {
  std::string& s = *out;
  for (const auto& round : r.rounds) {
    const RoundStaging& st = round.staging;
    if (round.status != RunStatus::kOk || (!st.async && st.copy_bytes == 0))
      continue;
    std::string label = round.staged ? "stage" : std::to_string(round.index);
    absl::StrAppendFormat(&s, "%-6s %-5s", round.phase, label);
    if (st.async && r.workload == Workload::kDataload) {
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

void AddGoodput(const RunResult& r, std::string* out) {
  std::string& s = *out;
  if (auto g = r.Goodput()) {
    absl::StrAppendFormat(
        &s,
        "goodput (MTTF %.6g s): checkpoint cost %.3f s (%s), restart %.3f s "
        "(%s)\n",
        g->in.mttf_seconds, g->in.delta_seconds, g->delta_source,
        g->in.restart_seconds, g->restart_source);
    if (g->in.interval_seconds > 0) {
      absl::StrAppendFormat(&s,
                            "  at %s %.6g s (cost %.3f s): goodput %.2f%%\n",
                            r.workload == Workload::kDataload
                                ? "the measured interval between saves"
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

// A datagen run: the dataset, and what the run wrote, found or removed.
// `made`: datagen's (what it wrote, reused or removed); else the dataset a
// dataload run read.
void AddDataset(const DatasetResult& d, bool made, std::string* out) {
  std::string& s = *out;
  if (d.source == DatasetSource::kListed) {
    absl::StrAppendFormat(
        &s,
        "dataset: %s, listed %s: %d samples of %s on average, %d objects, "
        "%s; not made by ckptbench: its bytes were read, not verified\n",
        E(d.uri), d.spec.format, d.spec.samples,
        FormatBytes(d.spec.sample_bytes), d.totals.objects,
        FormatBytes(d.totals.bytes));
    if (d.listing) {
      const DatasetResult::Listing& l = *d.listing;
      absl::StrAppendFormat(
          &s, "listing: %.3f s, %d requests, %d objects left out (not %s)",
          l.list_seconds, l.list_requests, l.ignored,
          d.spec.format == DatasetFormat::kTar ? "*.tar" : "files");
      if (d.spec.format == DatasetFormat::kTar) {
        absl::StrAppendFormat(&s, "; members indexed: %.3f s, %d requests, %s",
                              l.index_seconds, l.index_requests,
                              FormatBytes(l.index_bytes));
      }
      if (l.overlong_objects > 0) {
        absl::StrAppendFormat(
            &s,
            "; %d shard(s) longer than their archive, %s past the end "
            "blocks never read (first: %s)",
            l.overlong_objects, FormatBytes(l.overlong_bytes),
            E(l.overlong_first));
      }
      s += " (untimed, before epoch 1)\n";
    }
    return;
  }
  absl::StrAppendFormat(
      &s, "dataset: %s, %s: %d samples of %s (spread %s), %d objects, %s\n",
      E(d.uri), d.spec.format, d.spec.samples, FormatBytes(d.spec.sample_bytes),
      FormatBytes(d.spec.sample_spread), d.totals.objects,
      FormatBytes(d.totals.bytes));
  if (!made) return;
  if (d.removed) {
    if (d.unfinished) {
      absl::StrAppendFormat(&s,
                            "removed: %d objects of a datagen that did not "
                            "finish, and its claim\n",
                            d.removed_objects);
    } else {
      absl::StrAppendFormat(&s, "removed: %d objects and the manifest\n",
                            d.removed_objects);
    }
  } else if (d.reused) {
    s += "reused: its manifest matches the request; nothing written\n";
  } else {
    absl::StrAppendFormat(&s,
                          "written: %d objects, %s, %d samples, %.0f "
                          "samples/s\n",
                          d.written_objects, FormatBytes(d.written_bytes),
                          d.written_samples, d.samples_per_second);
  }
}

// Checkpoints during epochs: each save's window against the rest of its
// epoch.
void AddEpochCheckpoints(const RunResult& r, std::string* out) {
  for (const auto& round : r.rounds) {
    if (!round.epoch || round.epoch->saves.empty()) continue;
    const EpochResult& e = *round.epoch;
    absl::StrAppendFormat(
        out, "epoch %d checkpoints: rest of the epoch %.0f samples/s%s\n",
        round.index, e.rest_samples_per_second,
        e.compute_seconds > 0
            ? absl::StrFormat(", util %.1f%%", 100 * e.rest_utilization)
            : std::string());
    for (const auto& c : e.saves) {
      const double dip = e.rest_samples_per_second > 0
                             ? 100 * (1 - c.window_samples_per_second /
                                              e.rest_samples_per_second)
                             : 0;
      absl::StrAppendFormat(
          out,
          "  save %d (step-%d) after batch %d at %.3f s: window %.3f s, "
          "ranks held %.3f s; %.0f samples/s in it (%.0f%% %s the "
          "rest)%s%s\n",
          c.index, c.step, c.batch, c.start_seconds, c.window_seconds,
          c.blocked_seconds, c.window_samples_per_second, std::abs(dip),
          dip < 0 ? "above" : "below",
          e.compute_seconds > 0
              ? absl::StrFormat(", util %.1f%%", 100 * c.window_utilization)
              : std::string(),
          c.state_seconds > 0
              ? absl::StrFormat("; next state made in %.3f s beside",
                                c.state_seconds)
              : std::string());
    }
  }
}

// Below this many batches per rank, start-up is a large share of an
// epoch's utilization.
constexpr uint64_t kSteadyBatches = 50;

// dataload.find_accelerators: each count tried, and the answer.
void AddAcceleratorSearch(const RunResult& r, std::string* out) {
  if (!r.accelerator_search) return;
  const AcceleratorSearchResult& a = *r.accelerator_search;
  absl::StrAppendFormat(
      out,
      "\naccelerators (%.3f s per batch of %d), one cold epoch each:\n%-13s "
      "%-9s %8s %12s %12s  %s\n",
      a.compute_seconds, a.batch_size, "accelerators", "per node", "util%",
      "samples/s", "batches/rank", "");
  for (const auto& t : a.trials) {
    absl::StrAppendFormat(out, "%-13d %-9d %8.1f %12.0f %12d  %s%s\n",
                          t.accelerators, t.ranks_per_node, 100 * t.utilization,
                          t.samples_per_second, t.batches_per_rank,
                          t.held ? "held" : "fell",
                          t.client_bound ? " (client-bound)" : "");
  }
  const std::string why =
      a.ended_by == SearchEnd::kClient
          ? "the first count that fell was client-bound: ckptbench's CPU, not "
            "the storage, ended the search, so the storage may feed more"
      : a.ended_by == SearchEnd::kInterrupted
          ? "INTERRUPTED: the counts so far are no answer"
      : a.ended_by == SearchEnd::kLimit
          ? absl::StrCat("every count up to dataload.find_accelerators (",
                         a.max_per_node, " per node) held")
          : "the storage ended the search";
  absl::StrAppendFormat(
      out,
      "largest kept at >= %.0f%% utilization: %d accelerator(s) (%d per "
      "node x %d node(s)); %s\n",
      100 * a.threshold, a.largest_accelerators, a.largest_per_node, a.nodes,
      why);
  uint64_t fewest = 0;
  for (const auto& t : a.trials) {
    if (fewest == 0 || t.batches_per_rank < fewest) fewest = t.batches_per_rank;
  }
  if (fewest > 0 && fewest < kSteadyBatches) {
    absl::StrAppendFormat(
        out,
        "few batches per rank (%d at the most accelerators): the first "
        "batch's wait weighs on utilization; a larger dataset.samples "
        "measures the steady state\n",
        fewest);
  }
}

// A dataload run: per epoch, what the data loader delivered.
void AddEpochs(const RunResult& r, std::string* out) {
  std::string& s = *out;
  bool any = false;
  for (const auto& round : r.rounds) {
    if (!round.epoch) continue;
    if (!any) {
      absl::StrAppendFormat(
          &s, "\n%-6s %-5s %10s %10s %10s %11s %9s %9s %9s %8s  %s\n", "epoch",
          "cache", "samples", "samples/s", "MiB/s", "1st batch s", "lat p50ms",
          "lat p99ms", "wait p99", "util%", "samples read");
      any = true;
    }
    const EpochResult& e = *round.epoch;
    const std::string util = e.compute_seconds > 0
                                 ? absl::StrFormat("%.1f", 100 * e.utilization)
                                 : std::string("-");
    std::string read =
        e.each_sample_once
            ? "each once"
            : absl::StrFormat("%d of %d (dropped %d, padded %d)", e.samples,
                              e.dataset_samples, e.dropped, e.padded);
    if (e.idle_workers > 0) {
      absl::StrAppend(&read, "; ", e.idle_workers, " worker(s) idle");
    }
    absl::StrAppendFormat(
        &s, "%-6d %-5s %10d %10.0f %10.1f %11.3f %9.2f %9.2f %9.2f %8s  %s\n",
        round.index, e.warm ? "warm" : "cold", e.samples, e.samples_per_second,
        e.mib_per_second, e.first_batch_seconds,
        Ms(e.sample_last_byte.Percentile(0.5)),
        Ms(e.sample_last_byte.Percentile(0.99)), Ms(e.wait.Percentile(0.99)),
        util, read);
  }
  AddEpochCheckpoints(r, &s);
  if (any && r.rounds.back().epoch && r.rounds.back().epoch->idle_workers > 0) {
    s += "idle: iterable access split fewer objects than ranks x workers "
         "(dataset.shard_bytes smaller, or fewer workers, gives each work)\n";
  }
  if (any && r.rounds.back().epoch &&
      r.rounds.back().epoch->compute_seconds > 0) {
    s += "util%: the emulated accelerators' busy share (MLPerf Storage "
         "passes at 90%)\n";
  }
}

std::string SummaryTable(const RunResult& r) {
  std::string s;
  if (r.workload == Workload::kDataload) {
    absl::StrAppendFormat(&s,
                          "\nckptbench %s: dataload, %d node(s) x %d rank(s)\n",
                          r.status, r.num_nodes, r.ranks_per_node);
    if (r.dataset) AddDataset(*r.dataset, false, &s);
  } else if (r.dataset) {
    absl::StrAppendFormat(&s, "\nckptbench %s: datagen on %d node(s)\n",
                          r.status, r.num_nodes);
    AddDataset(*r.dataset, true, &s);
  } else {
    absl::StrAppendFormat(
        &s,
        "\nckptbench %s: %s, %s per checkpoint, %d rank(s) x %d file(s), "
        "%s\n",
        r.status, r.model, FormatBytes(r.checkpoint_bytes), r.world_size,
        r.thread_count, r.sharding);
  }
  // Strings that came from nodes, servers or listings are escaped (E): a
  // newline or escape sequence in one cannot forge a line of this table.
  absl::StrAppendFormat(
      &s, "storage: %s (%s %s)\n", E(r.environment.storage_kind),
      E(r.environment.filesystem), E(r.environment.mount_point));
  AddRounds(r, &s);
  AddEpochs(r, &s);
  AddAcceleratorSearch(r, &s);
  AddNodes(r, &s);
  s += "\n";
  AddPhases(r, &s);
  AddVisible(r, &s);
  AddStaging(r, &s);
  AddGoodput(r, &s);
  for (const auto& n : r.notes) absl::StrAppendFormat(&s, "note: %s\n", E(n));
  for (const auto& n : r.leftovers)
    absl::StrAppendFormat(&s, "left behind: %s\n", E(n));
  for (const auto& e : r.errors) absl::StrAppendFormat(&s, "error: %s\n", E(e));
  return s;
}

}  // namespace ckpt
