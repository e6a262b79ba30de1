// DataloadRound after the clock: the epoch's figures from the nodes'
// (checked) reports, the check that the samples read are the sampler's,
// and the checkpoints' windows against the rest of the epoch.
#include <algorithm>
#include <map>

#include "common/bytes.h"
#include "common/dataset/epoch_order.h"
#include "coordinator/dataset/dataload_round.h"
#include "coordinator/round/node_sums.h"
#include "wire/dataload_report_codec.h"

namespace ckpt {
namespace {

// What an epoch's ranks add up to.
struct EpochSums {
  uint64_t digest = 0;
  double compute = 0, rank_seconds = 0;
  std::vector<int> window_ranks;  // ranks that reached each window
};

// One rank's epoch (of node `node`, which started `lag` late) into the
// round's.
void AddRankEpoch(const RankEpochReport& e, int node, double lag,
                  double compute_time, EpochSums* sums, EpochResult* epoch) {
  EpochResult::Rank rk;
  rk.rank = e.rank;
  rk.node = node;
  rk.samples = e.samples;
  rk.bytes = e.bytes;
  rk.batches = e.batches;
  rk.seconds = e.seconds + lag;
  // -1: the rank got no batch (an iterable epoch's idle rank).
  rk.first_batch_seconds =
      e.first_batch_seconds < 0 ? -1 : e.first_batch_seconds + lag;
  rk.compute_seconds = e.compute_seconds;
  rk.wait_seconds = e.wait_seconds;
  rk.utilization =
      e.seconds > 0 && compute_time > 0 ? e.compute_seconds / e.seconds : 0;
  rk.order_digest = e.order_digest;
  sums->compute += e.compute_seconds;
  sums->rank_seconds += e.seconds;
  sums->digest += e.digest;
  epoch->samples += e.samples;
  epoch->bytes += e.bytes;
  epoch->batches += e.batches;
  if (rk.first_batch_seconds >= 0 &&
      (!epoch->first_batch ||
       rk.first_batch_seconds > epoch->first_batch_seconds)) {
    epoch->first_batch = {e.rank, lag, e.first_batch, 0};
  }
  epoch->first_batch_seconds =
      std::max(epoch->first_batch_seconds, rk.first_batch_seconds);
  epoch->wait.Merge(e.wait);
  for (size_t w = 0; w < e.windows.size(); ++w) {
    if (epoch->windows.size() <= w) {
      epoch->windows.emplace_back();
      sums->window_ranks.push_back(0);
    }
    ++sums->window_ranks[w];
    EpochResult::Window& win = epoch->windows[w];
    win.steps += e.windows[w].steps;
    win.mean_seconds += e.windows[w].mean_seconds;
    win.variance += e.windows[w].variance;
  }
  epoch->ranks.push_back(rk);
}

}  // namespace

void DataloadRound::CheckSamples(uint64_t digest, EpochResult* epoch) const {
  epoch->dataset_samples = spec_.samples;
  if (Iterable()) {
    // Every object is some worker's, read whole: every sample once.
    uint64_t expect = 0;
    for (uint64_t s = 0; s < spec_.samples; ++s) expect += SampleDigest(s);
    epoch->each_sample_once =
        epoch->samples == spec_.samples && digest == expect;
    return;
  }
  const SamplerSpec sampler{spec_.samples,        World(),
                            plan_.seed,           plan_.epoch,
                            plan_.loader.shuffle, plan_.loader.drop_last};
  const SamplerShape shape = ShapeOf(sampler);
  epoch->dropped = shape.dropped;
  epoch->padded = shape.padded;
  if (spec_.samples == 0) return;
  // The sampler's order position by position: no list of it is held.
  const EpochOrder order = SampleOrder(sampler);
  uint64_t expect = 0;
  const uint64_t total = shape.per_rank * World();
  for (uint64_t pos = 0; pos < total; ++pos) {
    expect += SampleDigest(order[pos % order.size()]);
  }
  epoch->each_sample_once = shape.dropped == 0 && shape.padded == 0 &&
                            epoch->samples == spec_.samples && digest == expect;
}

void DataloadRound::Aggregate(const std::vector<PhaseOutcome>& reports,
                              const std::vector<PrepareOutcome>& prepared,
                              RoundResult* result) {
  EpochResult& epoch = NewEpoch(result);
  epoch.access = plan_.loader.access;
  epoch.order = kEpochOrderName;
  if (Iterable()) {
    epoch.shuffle_buffer = static_cast<uint64_t>(plan_.loader.shuffle_buffer);
  }
  epoch.warm = plan_.warm;
  epoch.compute_seconds = plan_.loader.compute_time;
  EpochSums sums;
  double busy = 0;
  // The reports that decode (a node's that does not failed its check).
  std::vector<DataloadReport> decoded;
  std::vector<double> lags;
  for (size_t i = 0; i < reports.size(); ++i) {
    const PhaseOutcome& rep = reports[i];
    NodeResult nr;
    const double lag = std::max(0.0, rep.start_lag_seconds);
    for (const RankOutcome& ro : rep.ranks) {
      nr.ranks.push_back(ro.rank);
      nr.bytes += ro.bytes;
      nr.last_done_seconds = std::max(nr.last_done_seconds, ro.done_seconds);
    }
    busy += AppendNode(*nodes_[i], rep,
                       i < prepared.size() ? &prepared[i] : nullptr,
                       std::move(nr), result)
                .host_cpu_busy;
    absl::StatusOr<DataloadReport> r =
        DecodeDataloadReport(rep.workload_report);
    if (!r.ok()) continue;
    for (const RankEpochReport& e : r->ranks) {
      AddRankEpoch(e, nodes_[i]->index(), lag, plan_.loader.compute_time, &sums,
                   &epoch);
    }
    for (const WorkerReport& w : r->workers) {
      epoch.workers.push_back({w.rank, w.worker, w.samples, w.batches,
                               w.requests, w.retries, w.throttles,
                               w.new_connections, w.objects});
      if (Iterable() && w.objects == 0) ++epoch.idle_workers;
    }
    epoch.sample_first_byte.Merge(r->sample_first_byte);
    epoch.sample_last_byte.Merge(r->sample_last_byte);
    decoded.push_back(*std::move(r));
    lags.push_back(lag);
  }
  if (epoch.first_batch) epoch.first_batch->dataset_seconds = dataset_seconds_;
  // Window k's figures averaged over the ranks that reached it.
  for (size_t w = 0; w < epoch.windows.size(); ++w) {
    epoch.windows[w].mean_seconds /= sums.window_ranks[w];
    epoch.windows[w].variance /= sums.window_ranks[w];
  }
  if (!reports.empty()) result->host_cpu_busy = busy / reports.size();
  result->bytes = epoch.bytes;
  result->throughput_mib_s = MibPerSecond(result->bytes, result->seconds);
  // A listed dataset's bytes are the user's: read, not verified.
  result->verified = result->status == RunStatus::kOk && !plan_.listed;
  // With checkpoints, the epoch ends at its last batch consumed: an async
  // save's persisting after it is beside the epoch (its round says).
  double seconds = result->seconds;
  if (plan_.saves != nullptr) {
    double last = 0;
    for (const auto& rk : epoch.ranks) last = std::max(last, rk.seconds);
    if (last > 0) seconds = std::min(seconds, last);
    result->throughput_mib_s = MibPerSecond(result->bytes, seconds);
    SumUpSaves(decoded, lags, seconds, &epoch);
  }
  epoch.mib_per_second = result->throughput_mib_s;
  epoch.samples_per_second = seconds > 0 ? epoch.samples / seconds : 0;
  epoch.utilization = sums.rank_seconds > 0 && plan_.loader.compute_time > 0
                          ? sums.compute / sums.rank_seconds
                          : 0;
  std::sort(epoch.ranks.begin(), epoch.ranks.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  CheckSamples(sums.digest, &epoch);
}

void DataloadRound::SumUpSaves(const std::vector<DataloadReport>& reports,
                               const std::vector<double>& lags, double seconds,
                               EpochResult* epoch) const {
  std::map<uint32_t, EpochResult::Save> by_save;
  std::map<uint32_t, double> compute;  // in each window, summed
  // Some window open (each batch once): the slowest node's time, and what
  // all ranks consumed then.
  double any_open = 0, any_open_compute = 0;
  uint64_t any_open_samples = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    const DataloadReport& r = reports[i];
    const double lag = lags[i];
    any_open = std::max(any_open, r.checkpoint_window_seconds);
    any_open_samples += r.checkpoint_window_samples;
    any_open_compute += r.checkpoint_window_compute_seconds;
    for (const EpochSaveStats& w : r.saves) {
      EpochResult::Save& s = by_save[w.save];
      if (s.index == 0 || w.start_seconds + lag < s.start_seconds) {
        s.start_seconds = w.start_seconds + lag;
      }
      s.index = static_cast<int>(w.save);
      s.step = std::max(s.step, w.step);
      s.batch = w.batch;
      s.window_seconds = std::max(
          s.window_seconds, std::max(0.0, w.end_seconds - w.start_seconds));
      s.blocked_seconds = std::max(s.blocked_seconds, w.blocked_seconds);
      s.state_seconds = std::max(s.state_seconds, w.state_seconds);
      s.arrival_spread_seconds =
          std::max(s.arrival_spread_seconds, w.arrival_spread_seconds);
      s.window_samples += w.window_samples;
      compute[w.save] += w.window_compute_seconds;
    }
  }
  const double world = static_cast<double>(World());
  for (auto& [k, s] : by_save) {
    // Its rates over the part of it the epoch's batches ran in: a save
    // after the last batch persists beside nothing.
    const double in_epoch =
        std::max(0.0, std::min(s.start_seconds + s.window_seconds, seconds) -
                          s.start_seconds);
    if (in_epoch > 0) {
      s.window_samples_per_second = s.window_samples / in_epoch;
      s.window_utilization = compute[k] / (world * in_epoch);
    }
    epoch->saves.push_back(s);
  }
  double total_compute = 0;
  for (const auto& rk : epoch->ranks) total_compute += rk.compute_seconds;
  const double rest = seconds - any_open;
  if (rest > 0) {
    epoch->rest_samples_per_second =
        static_cast<double>(epoch->samples -
                            std::min(epoch->samples, any_open_samples)) /
        rest;
    epoch->rest_utilization =
        std::max(0.0, total_compute - any_open_compute) / (world * rest);
  }
}

}  // namespace ckpt
