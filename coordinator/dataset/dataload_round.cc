#include "coordinator/dataset/dataload_round.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/dataset_manifest.h"
#include "common/epoch_order.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "coordinator/reply_check.h"
#include "coordinator/round/node_sums.h"
#include "proto/ckptbench/v1/dataset.pb.h"
#include "wire/backend_codec.h"
#include "wire/histogram_codec.h"
#include "wire/kinds_codec.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

namespace {

// What an epoch's ranks add up to.
struct EpochSums {
  uint64_t digest = 0;
  double compute = 0, rank_seconds = 0;
  std::vector<int> window_ranks;  // ranks that reached each window
};

// One rank's epoch (of node `node`, which started `lag` late) into the
// round's.
void AddRankEpoch(const v1::RankEpoch& e, int node, double lag,
                  double compute_time, EpochSums* sums, EpochResult* epoch) {
  EpochResult::Rank rk;
  rk.rank = e.rank();
  rk.node = node;
  rk.samples = e.samples();
  rk.bytes = e.bytes();
  rk.batches = e.batches();
  rk.seconds = e.seconds() + lag;
  // -1: the rank got no batch (an iterable epoch's idle rank).
  rk.first_batch_seconds =
      e.first_batch_seconds() < 0 ? -1 : e.first_batch_seconds() + lag;
  rk.compute_seconds = e.compute_seconds();
  rk.wait_seconds = e.wait_seconds();
  rk.utilization = e.seconds() > 0 && compute_time > 0
                       ? e.compute_seconds() / e.seconds()
                       : 0;
  rk.order_digest = e.order_digest();
  sums->compute += e.compute_seconds();
  sums->rank_seconds += e.seconds();
  sums->digest += e.digest();
  epoch->samples += e.samples();
  epoch->bytes += e.bytes();
  epoch->batches += e.batches();
  epoch->first_batch_seconds =
      std::max(epoch->first_batch_seconds, rk.first_batch_seconds);
  epoch->wait.Merge(HistogramFromProto(e.wait()));
  for (int w = 0; w < e.windows_size(); ++w) {
    if (epoch->windows.size() <= static_cast<size_t>(w)) {
      epoch->windows.emplace_back();
      sums->window_ranks.push_back(0);
    }
    ++sums->window_ranks[w];
    EpochResult::Window& win = epoch->windows[w];
    win.steps += e.windows(w).steps();
    win.mean_seconds += e.windows(w).mean_seconds();
    win.variance += e.windows(w).variance();
  }
  epoch->ranks.push_back(rk);
}

}  // namespace

DataloadRound::DataloadRound(std::vector<NodeClient*> nodes, DataloadPlan plan)
    : nodes_(std::move(nodes)), plan_(std::move(plan)) {}

void DataloadRound::Begin(RoundResult* result) {
  result->workload = Workload::kDataload;
  result->phase = Phase::kLoad;
  result->index = static_cast<int>(plan_.epoch) + 1;
}

std::string DataloadRound::Title(RoundNameForm form) const {
  return form == RoundNameForm::kLog
             ? absl::StrCat("epoch ", plan_.epoch + 1, " round")
             : absl::StrCat("epoch ", plan_.epoch + 1);
}

PhaseJob DataloadRound::BuildPrepare(size_t node) {
  v1::DataloadJob job;
  job.set_dataset_uri(
      plan_.node_local ? ForNode(plan_.uri, nodes_[node]->index()) : plan_.uri);
  job.set_first_rank(static_cast<uint32_t>(node * plan_.ranks_per_node));
  job.set_ranks(static_cast<uint32_t>(plan_.ranks_per_node));
  job.set_world(World());
  job.set_epoch(plan_.epoch);
  job.set_seed(plan_.seed);
  job.set_shuffle(plan_.loader.shuffle);
  job.set_drop_last(plan_.loader.drop_last);
  job.set_access(Iterable() ? v1::DATA_ACCESS_ITERABLE : v1::DATA_ACCESS_MAP);
  job.set_shuffle_buffer(static_cast<uint32_t>(plan_.loader.shuffle_buffer));
  if (plan_.listed) {
    job.set_listed(true);
    job.set_listed_format(plan_.listed_format == DatasetFormat::kFiles
                              ? v1::DATASET_FORMAT_FILES
                              : v1::DATASET_FORMAT_TAR);
    v1::ListingLimits& limits = *job.mutable_list_limits();
    limits.set_max_objects(plan_.list_limits.max_objects);
    limits.set_max_pages(plan_.list_limits.max_pages);
    limits.set_max_key_bytes(plan_.list_limits.max_key_bytes);
    limits.set_max_page_bytes(plan_.list_limits.max_page_bytes);
    limits.set_max_bytes(plan_.list_limits.max_bytes);
  }
  job.set_batch_size(static_cast<uint32_t>(plan_.loader.batch_size));
  job.set_num_workers(static_cast<uint32_t>(plan_.loader.num_workers));
  job.set_prefetch_factor(static_cast<uint32_t>(plan_.loader.prefetch_factor));
  job.set_compute_seconds(plan_.loader.compute_time);
  job.set_preprocess_seconds(plan_.loader.preprocess_time);
  job.set_block_size(plan_.block_size);
  *job.mutable_backend() = ToWire(plan_.backend);
  job.set_cache_mode(ToWire(plan_.warm ? CacheMode::kNone : plan_.cache_mode));
  if (plan_.saves != nullptr) {
    *job.mutable_checkpoint() = plan_.saves->JobFor(node);
  }
  PhaseJob prepare;
  prepare.workload = "dataload";
  prepare.workload_job = job.SerializeAsString();
  return prepare;
}

void DataloadRound::Prepared(const std::vector<PrepareOutcome>& prepared,
                             RoundResult* result) {
  SumUpColdReads(prepared, Title(RoundNameForm::kLog), result);
  std::string first;
  for (size_t i = 0; i < prepared.size(); ++i) {
    v1::DataloadPrepared p;
    if (!p.ParseFromString(prepared[i].workload_outcome)) {
      manifests_agree_ = false;
      continue;
    }
    if (plan_.listed) {
      AddListing(i, p.listing());
      continue;
    }
    if (i == 0) {
      first = p.manifest();
      auto m = DatasetManifestFromJson(first, plan_.uri);
      if (m.ok()) {
        spec_ = m->spec;
        manifest_ = *m;
        objects_ = m->totals.objects;
        SetProgressBytes(m->totals);
      }
    } else if (p.manifest() != first && !plan_.node_local) {
      manifests_agree_ = false;  // another dataset on one shared path
    }
  }
}

void DataloadRound::SetProgressBytes(const DatasetTotals& totals) {
  if (spec_.samples == 0) return;
  // The epoch's bytes for the progress line: the samples' bytes in the
  // share the sampler gives out.
  const SamplerShape shape =
      ShapeOf({spec_.samples, World(), 0, 0, true, plan_.loader.drop_last});
  progress_bytes_ = Iterable()
                        ? totals.bytes  // every object, streamed whole
                        : static_cast<uint64_t>(
                              static_cast<double>(totals.sample_bytes) *
                              static_cast<double>(shape.per_rank * World()) /
                              static_cast<double>(spec_.samples));
}

void DataloadRound::AddListing(size_t node, const v1::DatasetListing& l) {
  if (node == 0) {
    listing_digest_ = l.digest();
    DatasetResult& d = listed_.emplace();
    d.uri = plan_.uri;
    d.source = DatasetSource::kListed;
    spec_.format = plan_.listed_format;
    spec_.samples = std::min<uint64_t>(l.samples(), kMaxDatasetSamples);
    spec_.sample_bytes = spec_.samples ? l.sample_bytes() / spec_.samples : 0;
    d.spec = spec_;
    d.totals = {l.objects(), l.bytes(), l.sample_bytes()};
    objects_ = l.objects();
    SetProgressBytes(d.totals);
    DatasetResult::Listing& listing = d.listing.emplace();
    listing.ignored = l.ignored();
    listing.overlong_objects = l.overlong_objects();
    listing.overlong_bytes = l.overlong_bytes();
    listing.overlong_first =
        EscapeForTerminal(l.overlong_first().substr(0, 4096));
  } else if (!listed_ ||
             (plan_.node_local
                  // Each node its own copy: the same counts, or the
                  // sampler's split differs between them.
                  ? l.objects() != objects_ ||
                        std::min<uint64_t>(l.samples(), kMaxDatasetSamples) !=
                            spec_.samples
                  : l.digest() != listing_digest_)) {
    manifests_agree_ = false;  // another listing of one shared path
  }
  if (!listed_) return;
  DatasetResult::Listing& sum = *listed_->listing;
  if (std::isfinite(l.list_seconds()) && std::isfinite(l.index_seconds())) {
    sum.list_seconds = std::max(sum.list_seconds, l.list_seconds());
    sum.index_seconds = std::max(sum.index_seconds, l.index_seconds());
  }
  sum.list_requests += l.list_requests();
  sum.index_requests += l.index_requests();
  sum.index_bytes += l.index_bytes();
}

absl::Status DataloadRound::CheckReport(size_t node, const PhaseOutcome& report,
                                        const std::string& who) {
  if (!manifests_agree_) {
    return absl::FailedPreconditionError(absl::StrCat(
        who,
        plan_.listed
            ? (plan_.node_local ? " listed another count of objects or samples "
                                  "than node 0 at "
                                : " listed other objects than node 0 at ")
            : " read another manifest than node 0 at ",
        plan_.uri, ": the dataset changed during the epoch's prepare"));
  }
  RETURN_IF_ERROR(CheckReportFigures(report, who));
  v1::DataloadReport r;
  if (!r.ParseFromString(report.workload_report) ||
      r.ranks_size() != plan_.ranks_per_node ||
      report.ranks.size() != static_cast<size_t>(plan_.ranks_per_node) ||
      r.workers_size() != plan_.ranks_per_node * plan_.loader.num_workers) {
    return absl::DataLossError(absl::StrCat(
        who, " sent a dataload report that does not parse or names ",
        r.ranks_size(), " ranks and ", r.workers_size(), " workers (expected ",
        plan_.ranks_per_node, " and ",
        plan_.ranks_per_node * plan_.loader.num_workers, ")"));
  }
  auto bad = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat(who, " reported ", what));
  };
  if (r.order() != kEpochOrderName) {
    // Its samples' digest is checked against this build's order.
    return bad(absl::StrCat("an epoch read in the order '",
                            EscapeForTerminal(r.order().substr(0, 64)),
                            "'; this coordinator's is '", kEpochOrderName,
                            "' (another ckptbench version on that node)"));
  }
  RETURN_IF_ERROR(CheckRankFigures(r, node, who));
  RETURN_IF_ERROR(CheckSaveFigures(r, who));
  RETURN_IF_ERROR(CheckHistogram("sample first byte", r.sample_first_byte()));
  return CheckHistogram("sample last byte", r.sample_last_byte());
}

absl::Status DataloadRound::CheckRankFigures(const v1::DataloadReport& r,
                                             size_t node,
                                             const std::string& who) const {
  const uint64_t most = MostPerRank();
  const uint64_t first = node * plan_.ranks_per_node;
  auto bad = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat(who, " reported ", what));
  };
  for (const v1::RankEpoch& e : r.ranks()) {
    if (e.rank() < first || e.rank() >= first + plan_.ranks_per_node ||
        e.samples() > most) {
      return bad(absl::StrCat(
          e.samples(), " samples for rank ", e.rank(), "; its ranks are ",
          first, " to ", first + plan_.ranks_per_node - 1, ", each of at most ",
          most, " samples this epoch"));
    }
    for (double t : {e.seconds(), e.first_batch_seconds(), e.compute_seconds(),
                     e.wait_seconds()}) {
      if (!IsReportDuration(t)) return bad(absl::StrCat("a time of ", t, " s"));
    }
    for (const v1::StepWindow& w : e.windows()) {
      if (!IsReportDuration(w.mean_seconds()) || !std::isfinite(w.variance()) ||
          w.variance() < 0) {
        return bad("a step window that is no duration");
      }
    }
    RETURN_IF_ERROR(CheckHistogram("batch wait", e.wait()));
  }
  for (const v1::WorkerStats& w : r.workers()) {
    if (w.rank() < first || w.rank() >= first + plan_.ranks_per_node ||
        w.worker() >= static_cast<uint32_t>(plan_.loader.num_workers) ||
        w.samples() > most || w.objects() > objects_) {
      return bad(absl::StrCat("worker ", w.worker(), " of rank ", w.rank(),
                              " with ", w.samples(), " samples"));
    }
  }
  return absl::OkStatus();
}

absl::Status DataloadRound::CheckSaveFigures(const v1::DataloadReport& r,
                                             const std::string& who) const {
  const uint64_t most = MostPerRank();
  auto bad = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat(who, " reported ", what));
  };
  if ((plan_.saves == nullptr &&
       (r.checkpoint_window_seconds() != 0 ||
        r.checkpoint_window_samples() != 0 ||
        r.checkpoint_window_compute_seconds() != 0)) ||
      !IsReportDuration(r.checkpoint_window_seconds()) ||
      !IsReportDuration(r.checkpoint_window_compute_seconds()) ||
      r.checkpoint_window_samples() > most * plan_.ranks_per_node) {
    return bad(absl::StrCat("checkpoint windows of ",
                            r.checkpoint_window_seconds(), " s and ",
                            r.checkpoint_window_samples(), " samples"));
  }
  std::set<uint32_t> saves;
  for (const v1::EpochSaveStats& w : r.saves()) {
    if (plan_.saves == nullptr || !saves.insert(w.save()).second ||
        !plan_.saves->SaveStepIs(w.save(), w.step()) ||
        w.window_samples() > most * plan_.ranks_per_node) {
      return bad(absl::StrCat("checkpoint ", w.save(), " (step ", w.step(),
                              ") with ", w.window_samples(),
                              " samples in its window: not a save of this "
                              "epoch, or given twice"));
    }
    for (double t : {w.start_seconds(), w.end_seconds(), w.blocked_seconds(),
                     w.state_seconds(), w.window_compute_seconds(),
                     w.arrival_spread_seconds()}) {
      if (!IsReportDuration(t)) {
        return bad(
            absl::StrCat("checkpoint ", w.save(), " with a time of ", t, " s"));
      }
    }
  }
  return absl::OkStatus();
}

void DataloadRound::OnAction(size_t node, const ActionAsk& ask,
                             ActionReplyFn reply) {
  if (plan_.saves == nullptr) {
    RoundWorkload::OnAction(node, ask, std::move(reply));
    return;
  }
  plan_.saves->OnAsk(node, ask, std::move(reply));
}

uint64_t DataloadRound::MostPerRank() const {
  if (Iterable()) return spec_.samples;  // one rank might get every object
  return ShapeOf({spec_.samples, World(), plan_.seed, plan_.epoch,
                  plan_.loader.shuffle, plan_.loader.drop_last})
      .per_rank;
}

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
  EpochResult& epoch = result->epoch.emplace();
  epoch.access = plan_.loader.access;
  epoch.order = kEpochOrderName;
  if (Iterable()) {
    epoch.shuffle_buffer = static_cast<uint64_t>(plan_.loader.shuffle_buffer);
  }
  epoch.warm = plan_.warm;
  epoch.compute_seconds = plan_.loader.compute_time;
  EpochSums sums;
  double busy = 0;
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
    v1::DataloadReport r;
    if (!r.ParseFromString(rep.workload_report)) continue;
    for (const v1::RankEpoch& e : r.ranks()) {
      AddRankEpoch(e, nodes_[i]->index(), lag, plan_.loader.compute_time, &sums,
                   &epoch);
    }
    for (const v1::WorkerStats& w : r.workers()) {
      epoch.workers.push_back({w.rank(), w.worker(), w.samples(), w.batches(),
                               w.requests(), w.retries(), w.throttles(),
                               w.new_connections(), w.objects()});
      if (Iterable() && w.objects() == 0) ++epoch.idle_workers;
    }
    epoch.sample_first_byte.Merge(HistogramFromProto(r.sample_first_byte()));
    epoch.sample_last_byte.Merge(HistogramFromProto(r.sample_last_byte()));
  }
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
    SumUpSaves(reports, seconds, &epoch);
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

void DataloadRound::SumUpSaves(const std::vector<PhaseOutcome>& reports,
                               double seconds, EpochResult* epoch) const {
  std::map<uint32_t, EpochResult::Save> by_save;
  std::map<uint32_t, double> compute;  // in each window, summed
  // Some window open (each batch once): the slowest node's time, and what
  // all ranks consumed then.
  double any_open = 0, any_open_compute = 0;
  uint64_t any_open_samples = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    v1::DataloadReport r;
    if (!r.ParseFromString(reports[i].workload_report)) continue;
    const double lag = std::max(0.0, reports[i].start_lag_seconds);
    any_open = std::max(any_open, r.checkpoint_window_seconds());
    any_open_samples += r.checkpoint_window_samples();
    any_open_compute += r.checkpoint_window_compute_seconds();
    for (const v1::EpochSaveStats& w : r.saves()) {
      EpochResult::Save& s = by_save[w.save()];
      if (s.index == 0 || w.start_seconds() + lag < s.start_seconds) {
        s.start_seconds = w.start_seconds() + lag;
      }
      s.index = static_cast<int>(w.save());
      s.step = std::max(s.step, w.step());
      s.batch = w.batch();
      s.window_seconds = std::max(
          s.window_seconds, std::max(0.0, w.end_seconds() - w.start_seconds()));
      s.blocked_seconds = std::max(s.blocked_seconds, w.blocked_seconds());
      s.state_seconds = std::max(s.state_seconds, w.state_seconds());
      s.arrival_spread_seconds =
          std::max(s.arrival_spread_seconds, w.arrival_spread_seconds());
      s.window_samples += w.window_samples();
      compute[w.save()] += w.window_compute_seconds();
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
