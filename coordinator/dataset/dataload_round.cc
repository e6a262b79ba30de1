#include "coordinator/dataset/dataload_round.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/dataset/dataset_manifest.h"
#include "common/dataset/epoch_order.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "coordinator/reply_check.h"
#include "coordinator/round/node_sums.h"
#include "wire/dataload_codec.h"
#include "wire/dataload_report_codec.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

DataloadRound::DataloadRound(std::vector<NodeClient*> nodes, DataloadPlan plan)
    : nodes_(std::move(nodes)), plan_(std::move(plan)) {}

void DataloadRound::Begin(RoundResult* result) {
  result->workload = kDataloadWorkload;
  result->phase = Phase::kLoad;
  result->index = static_cast<int>(plan_.epoch) + 1;
}

std::string DataloadRound::Title(RoundNameForm form) const {
  return form == RoundNameForm::kLog
             ? absl::StrCat("epoch ", plan_.epoch + 1, " round")
             : absl::StrCat("epoch ", plan_.epoch + 1);
}

PhaseJob DataloadRound::BuildPrepare(size_t node) {
  DataloadJob job;
  job.dataset_uri =
      plan_.node_local ? ForNode(plan_.uri, nodes_[node]->index()) : plan_.uri;
  job.first_rank = static_cast<uint32_t>(node * plan_.ranks_per_node);
  job.ranks = static_cast<uint32_t>(plan_.ranks_per_node);
  job.world = World();
  job.epoch = plan_.epoch;
  job.seed = plan_.seed;
  job.loader = plan_.loader;
  job.listed = plan_.listed;
  job.listed_format = plan_.listed_format;
  job.list_limits = plan_.list_limits;
  job.block_size = plan_.block_size;
  job.backend = plan_.backend;
  job.cache_mode = plan_.warm ? CacheMode::kNone : plan_.cache_mode;
  if (plan_.saves != nullptr) job.checkpoint = plan_.saves->JobFor(node);
  PhaseJob prepare;
  prepare.workload = kDataloadWorkload;
  prepare.workload_job = EncodeDataloadJob(job);
  return prepare;
}

void DataloadRound::Prepared(const std::vector<PrepareOutcome>& prepared,
                             RoundResult* result) {
  SumUpColdReads(prepared, Title(RoundNameForm::kLog), result);
  std::string first;
  for (size_t i = 0; i < prepared.size(); ++i) {
    absl::StatusOr<DataloadPrepared> p =
        DecodeDataloadPrepared(prepared[i].workload_outcome);
    if (!p.ok()) {
      manifests_agree_ = false;
      continue;
    }
    if (IsReportDuration(p->dataset_seconds)) {
      dataset_seconds_ = std::max(dataset_seconds_, p->dataset_seconds);
    }
    if (plan_.listed) {
      AddListing(i, p->listing.value_or(DatasetListing()));
      continue;
    }
    if (i == 0) {
      first = p->manifest;
      auto m = DatasetManifestFromJson(first, plan_.uri);
      if (m.ok()) {
        spec_ = m->spec;
        manifest_ = *m;
        objects_ = m->totals.objects;
        SetProgressBytes(m->totals);
      }
    } else if (p->manifest != first && !plan_.node_local) {
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

void DataloadRound::AddListing(size_t node, const DatasetListing& l) {
  if (node == 0) {
    listing_digest_ = l.digest;
    DatasetResult& d = listed_.emplace();
    d.uri = plan_.uri;
    d.source = DatasetSource::kListed;
    spec_.format = plan_.listed_format;
    spec_.samples = std::min<uint64_t>(l.samples, kMaxDatasetSamples);
    spec_.sample_bytes = spec_.samples ? l.sample_bytes / spec_.samples : 0;
    d.spec = spec_;
    d.totals = {l.objects, l.bytes, l.sample_bytes};
    objects_ = l.objects;
    SetProgressBytes(d.totals);
    DatasetResult::Listing& listing = d.listing.emplace();
    listing.ignored = l.ignored;
    listing.overlong_objects = l.overlong_objects;
    listing.overlong_bytes = l.overlong_bytes;
    listing.overlong_first =
        EscapeForTerminal(l.overlong_first.substr(0, 4096));
  } else if (!listed_ ||
             (plan_.node_local
                  // Each node its own copy: the same counts, or the
                  // sampler's split differs between them.
                  ? l.objects != objects_ ||
                        std::min<uint64_t>(l.samples, kMaxDatasetSamples) !=
                            spec_.samples
                  : l.digest != listing_digest_)) {
    manifests_agree_ = false;  // another listing of one shared path
  }
  if (!listed_) return;
  DatasetResult::Listing& sum = *listed_->listing;
  if (std::isfinite(l.list_seconds) && std::isfinite(l.index_seconds)) {
    sum.list_seconds = std::max(sum.list_seconds, l.list_seconds);
    sum.index_seconds = std::max(sum.index_seconds, l.index_seconds);
  }
  sum.list_requests += l.list_requests;
  sum.index_requests += l.index_requests;
  sum.index_bytes += l.index_bytes;
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
  absl::StatusOr<DataloadReport> decoded =
      DecodeDataloadReport(report.workload_report);
  if (!decoded.ok()) {
    return absl::DataLossError(
        absl::StrCat(who, " sent ", decoded.status().message()));
  }
  const DataloadReport& r = *decoded;
  const size_t workers = static_cast<size_t>(plan_.ranks_per_node) *
                         static_cast<size_t>(plan_.loader.num_workers);
  if (r.ranks.size() != static_cast<size_t>(plan_.ranks_per_node) ||
      report.ranks.size() != static_cast<size_t>(plan_.ranks_per_node) ||
      r.workers.size() != workers) {
    return absl::DataLossError(
        absl::StrCat(who, " sent a dataload report that names ", r.ranks.size(),
                     " ranks and ", r.workers.size(), " workers (expected ",
                     plan_.ranks_per_node, " and ", workers, ")"));
  }
  auto bad = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat(who, " reported ", what));
  };
  if (r.order != kEpochOrderName) {
    // Its samples' digest is checked against this build's order.
    return bad(absl::StrCat("an epoch read in the order '",
                            EscapeForTerminal(r.order.substr(0, 64)),
                            "'; this coordinator's is '", kEpochOrderName,
                            "' (another ckptbench version on that node)"));
  }
  RETURN_IF_ERROR(CheckRankFigures(r, node, who));
  return CheckSaveFigures(r, who);
}

absl::Status DataloadRound::CheckFirstBatch(const RankEpochReport& e,
                                            const DataloadReport& r,
                                            const std::string& who) const {
  const FirstBatchParts& f = e.first_batch;
  auto bad = [&](const std::string& what) {
    return absl::DataLossError(
        absl::StrCat(who, " reported rank ", e.rank, "'s first batch ", what));
  };
  if (e.first_batch_seconds < 0) {
    if (f == FirstBatchParts{}) return absl::OkStatus();
    return bad("in parts, and no first batch");
  }
  double sum = 0;
  for (double t : {f.worker_start_seconds, f.connect_seconds, f.reads_seconds,
                   f.handoff_seconds}) {
    if (!IsReportDuration(t) || t < 0) {
      return bad(absl::StrCat("with a part of ", t, " s"));
    }
    sum += t;
  }
  // Each part from where the one before it ended: they add up, but for
  // the rounding of four differences.
  if (std::abs(sum - e.first_batch_seconds) >
      1e-6 + 1e-9 * e.first_batch_seconds) {
    return bad(absl::StrCat("in parts adding up to ", sum, " s, not ",
                            e.first_batch_seconds, " s"));
  }
  if (f.worker >= static_cast<uint32_t>(plan_.loader.num_workers) ||
      f.samples_read > MostPerRank()) {
    return bad(absl::StrCat("from worker ", f.worker, " of ",
                            plan_.loader.num_workers, ", after ",
                            f.samples_read, " samples"));
  }
  // Its requests and connections are some of its worker's in the epoch.
  for (const WorkerReport& w : r.workers) {
    if (w.rank == e.rank && w.worker == f.worker && f.requests <= w.requests &&
        f.new_connections <= w.new_connections) {
      return absl::OkStatus();
    }
  }
  return bad(absl::StrCat("after ", f.requests, " requests and ",
                          f.new_connections,
                          " new connections, more than its worker made"));
}

absl::Status DataloadRound::CheckRankFigures(const DataloadReport& r,
                                             size_t node,
                                             const std::string& who) const {
  const uint64_t most = MostPerRank();
  const uint64_t first = node * plan_.ranks_per_node;
  auto bad = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat(who, " reported ", what));
  };
  for (const RankEpochReport& e : r.ranks) {
    if (e.rank < first || e.rank >= first + plan_.ranks_per_node ||
        e.samples > most) {
      return bad(absl::StrCat(
          e.samples, " samples for rank ", e.rank, "; its ranks are ", first,
          " to ", first + plan_.ranks_per_node - 1, ", each of at most ", most,
          " samples this epoch"));
    }
    for (double t : {e.seconds, e.first_batch_seconds, e.compute_seconds,
                     e.wait_seconds}) {
      if (!IsReportDuration(t)) return bad(absl::StrCat("a time of ", t, " s"));
    }
    RETURN_IF_ERROR(CheckFirstBatch(e, r, who));
    for (const StepWindowStats& w : e.windows) {
      if (!IsReportDuration(w.mean_seconds) || !std::isfinite(w.variance) ||
          w.variance < 0) {
        return bad("a step window that is no duration");
      }
    }
  }
  for (const WorkerReport& w : r.workers) {
    if (w.rank < first || w.rank >= first + plan_.ranks_per_node ||
        w.worker >= static_cast<uint32_t>(plan_.loader.num_workers) ||
        w.samples > most || w.objects > objects_) {
      return bad(absl::StrCat("worker ", w.worker, " of rank ", w.rank,
                              " with ", w.samples, " samples"));
    }
  }
  return absl::OkStatus();
}

absl::Status DataloadRound::CheckSaveFigures(const DataloadReport& r,
                                             const std::string& who) const {
  const uint64_t most = MostPerRank();
  auto bad = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat(who, " reported ", what));
  };
  if ((plan_.saves == nullptr &&
       (r.checkpoint_window_seconds != 0 || r.checkpoint_window_samples != 0 ||
        r.checkpoint_window_compute_seconds != 0)) ||
      !IsReportDuration(r.checkpoint_window_seconds) ||
      !IsReportDuration(r.checkpoint_window_compute_seconds) ||
      r.checkpoint_window_samples > most * plan_.ranks_per_node) {
    return bad(absl::StrCat("checkpoint windows of ",
                            r.checkpoint_window_seconds, " s and ",
                            r.checkpoint_window_samples, " samples"));
  }
  std::set<uint32_t> saves;
  for (const EpochSaveStats& w : r.saves) {
    if (plan_.saves == nullptr || !saves.insert(w.save).second ||
        !plan_.saves->SaveStepIs(w.save, w.step) ||
        w.window_samples > most * plan_.ranks_per_node) {
      return bad(absl::StrCat("checkpoint ", w.save, " (step ", w.step,
                              ") with ", w.window_samples,
                              " samples in its window: not a save of this "
                              "epoch, or given twice"));
    }
    for (double t :
         {w.start_seconds, w.end_seconds, w.blocked_seconds, w.state_seconds,
          w.window_compute_seconds, w.arrival_spread_seconds}) {
      if (!IsReportDuration(t)) {
        return bad(
            absl::StrCat("checkpoint ", w.save, " with a time of ", t, " s"));
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

}  // namespace ckpt
