// The dataset workloads' parts of the terminal summary
// (coordinator/summary_parts.h).
#include "coordinator/dataset/dataset_summary.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/text.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/dataset/loader_sweep_html.h"

namespace ckpt {
namespace {

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
        EscapeForTerminal(d.uri), d.spec.format, d.spec.samples,
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
            EscapeForTerminal(l.overlong_first));
      }
      s += " (untimed, before epoch 1)\n";
    }
    return;
  }
  absl::StrAppendFormat(
      &s, "dataset: %s, %s: %d samples of %s (spread %s), %d objects, %s\n",
      EscapeForTerminal(d.uri), d.spec.format, d.spec.samples,
      FormatBytes(d.spec.sample_bytes), FormatBytes(d.spec.sample_spread),
      d.totals.objects, FormatBytes(d.totals.bytes));
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
    const EpochResult* epoch = EpochOf(round);
    if (epoch == nullptr || epoch->saves.empty()) continue;
    const EpochResult& e = *epoch;
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
  const AcceleratorSearchResult* search = AcceleratorSearchOf(r);
  if (search == nullptr) return;
  const AcceleratorSearchResult& a = *search;
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

// Each epoch's first batch in its parts (the slowest rank's).
void AddFirstBatches(const RunResult& r, std::string* out) {
  for (const auto& round : r.rounds) {
    const EpochResult* epoch = EpochOf(round);
    if (epoch == nullptr || !epoch->first_batch) continue;
    const EpochResult::FirstBatch& f = *epoch->first_batch;
    const FirstBatchParts& p = f.parts;
    // An object store's requests and connections (none on a file system).
    const std::string requests =
        p.requests == 0 ? std::string()
                        : absl::StrFormat(", %d requests, %d new connection%s",
                                          p.requests, p.new_connections,
                                          p.new_connections == 1 ? "" : "s");
    absl::StrAppendFormat(
        out,
        "first batch, epoch %d: %.3f s = node start %.3f + worker start "
        "%.3f + connecting %.3f + reads %.3f (%d samples%s) + hand-off %.3f "
        "(rank %d, worker %d); before the epoch, the dataset known in %.3f "
        "s\n",
        round.index, epoch->first_batch_seconds, f.node_start_seconds,
        p.worker_start_seconds, p.connect_seconds, p.reads_seconds,
        p.samples_read, requests, p.handoff_seconds, f.rank, p.worker,
        f.dataset_seconds);
  }
}

// A dataload run: per epoch, what the data loader delivered.
void AddEpochs(const RunResult& r, std::string* out) {
  std::string& s = *out;
  bool any = false;
  for (const auto& round : r.rounds) {
    const EpochResult* epoch = EpochOf(round);
    if (epoch == nullptr) continue;
    if (!any) {
      absl::StrAppendFormat(
          &s, "\n%-6s %-5s %10s %10s %10s %11s %9s %9s %9s %8s  %s\n", "epoch",
          "cache", "samples", "samples/s", "MiB/s", "1st batch s", "lat p50ms",
          "lat p99ms", "wait p99", "util%", "samples read");
      any = true;
    }
    const EpochResult& e = *epoch;
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
        LatencyMs(e.sample_last_byte.Percentile(0.5)),
        LatencyMs(e.sample_last_byte.Percentile(0.99)),
        LatencyMs(e.wait.Percentile(0.99)), util, read);
  }
  AddFirstBatches(r, &s);
  AddEpochCheckpoints(r, &s);
  const EpochResult* last = any ? EpochOf(r.rounds.back()) : nullptr;
  if (last != nullptr && last->idle_workers > 0) {
    s += "idle: iterable access split fewer objects than ranks x workers "
         "(dataset.shard_bytes smaller, or fewer workers, gives each work)\n";
  }
  if (last != nullptr && last->compute_seconds > 0) {
    s += "util%: the emulated accelerators' busy share (MLPerf Storage "
         "passes at 90%)\n";
  }
}

// The report's row for the first run's dataset.
std::optional<std::pair<std::string, std::string>> DatasetRow(
    const RunResult& r) {
  const DatasetResult* dataset = DatasetResultOf(r);
  if (dataset == nullptr) return std::nullopt;
  const DatasetResult& d = *dataset;
  return std::make_pair(
      absl::StrCat("first run's dataset (", r.workload, ")"),
      absl::StrCat(d.uri, ", ", std::string(Name(d.spec.format)), ", ",
                   d.spec.samples, " samples, ", d.totals.objects, " objects, ",
                   d.totals.bytes, " bytes"));
}

}  // namespace

WorkloadSummary DatagenSummary() {
  WorkloadSummary s;
  s.plan_row = DatasetRow;
  s.head = [](const RunResult& r, std::string* out) {
    absl::StrAppendFormat(out, "\nckptbench %s: datagen on %d node(s)\n",
                          r.status, r.num_nodes);
    if (const DatasetResult* d = DatasetResultOf(r)) AddDataset(*d, true, out);
  };
  return s;
}

std::string LoaderSweepTable(const ReportInput& input) {
  const std::vector<LoaderPoint> loader = LoaderPoints(input);
  if (loader.empty()) return "";
  std::string out =
      absl::StrFormat("\n%-48s %6s %12s %8s %12s\n", "point (data loader)",
                      "epochs", "samples/s", "util%", "step sd ms");
  for (const LoaderPoint& p : loader) {
    absl::StrAppendFormat(
        &out, "%-48s %6d %12.0f %8s %12.3f\n", EscapeForTerminal(p.point_name),
        p.epochs, p.samples_per_second,
        p.compute ? absl::StrFormat("%.1f", 100 * p.utilization) : "-",
        p.step_sd_ms);
  }
  out +=
      "samples/s: each point's cold epoch, the mean over its repeats; util%: "
      "the emulated accelerators' (dataload.compute_time > 0)\n";
  return out;
}

WorkloadSummary DataloadSummary() {
  WorkloadSummary s;
  s.plan_row = DatasetRow;
  s.head = [](const RunResult& r, std::string* out) {
    absl::StrAppendFormat(out,
                          "\nckptbench %s: dataload, %d node(s) x %d rank(s)\n",
                          r.status, r.num_nodes, r.ranks_per_node);
    if (const DatasetResult* d = DatasetResultOf(r)) AddDataset(*d, false, out);
  };
  s.tables = [](const RunResult& r, std::string* out) {
    AddEpochs(r, out);
    AddAcceleratorSearch(r, out);
  };
  s.sweep_table = LoaderSweepTable;
  return s;
}

}  // namespace ckpt
