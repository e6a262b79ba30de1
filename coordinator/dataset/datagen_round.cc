#include "coordinator/dataset/datagen_round.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/clock.h"
#include "common/dataset/dataset_manifest.h"
#include "common/error_kind.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/storage_commands.h"
#include "coordinator/claimed_make.h"
#include "coordinator/reply_check.h"
#include "coordinator/round/node_sums.h"
#include "coordinator/round/round_protocol.h"
#include "wire/datagen_codec.h"

namespace ckpt {

DatagenRound::DatagenRound(std::vector<NodeClient*> nodes, DatagenPlan plan,
                           DatasetResult* dataset)
    : nodes_(std::move(nodes)), plan_(std::move(plan)), dataset_(dataset) {
  if (!plan_.remove) totals_ = ComputeTotals(plan_.spec);
  dataset_->uri = plan_.uri;
  dataset_->removed = plan_.remove;
  if (!plan_.remove) {
    dataset_->spec = plan_.spec;
    dataset_->totals = totals_;
  }
}

std::string DatagenRound::UriOf(size_t node) const {
  return plan_.node_local ? ForNode(plan_.uri, nodes_[node]->index())
                          : plan_.uri;
}

void DatagenRound::Begin(RoundResult* result) {
  result->workload = kDatagenWorkload;
  result->phase = Phase::kSave;
  result->index = 1;
}

std::string DatagenRound::Title(RoundNameForm form) const {
  const char* what = plan_.remove ? "remove dataset" : kDatagenWorkload;
  return form == RoundNameForm::kLog ? absl::StrCat(what, " round")
                                     : std::string(what);
}

uint64_t DatagenRound::ProgressBytes() const {
  return plan_.node_local ? totals_.bytes * nodes_.size() : totals_.bytes;
}

PhaseJob DatagenRound::BuildPrepare(size_t node) {
  DatagenJob job;
  if (!plan_.remove) job.spec = plan_.spec;
  job.dataset_uri = UriOf(node);
  job.share_index = plan_.node_local ? 0 : static_cast<uint32_t>(node);
  job.share_count = plan_.node_local ? 1 : static_cast<uint32_t>(nodes_.size());
  job.write_threads = static_cast<uint32_t>(plan_.write_threads);
  job.block_size = plan_.block_size;
  job.fsync = plan_.fsync;
  job.backend = plan_.backend;
  job.remove = plan_.remove;
  job.manifest_owner = node < Owners();
  job.take_over = plan_.take_over;
  PhaseJob prepare;
  prepare.workload = kDatagenWorkload;
  prepare.workload_job = EncodeDatagenJob(job);
  return prepare;
}

void DatagenRound::Prepared(const std::vector<PrepareOutcome>& prepared,
                            RoundResult* /*result*/) {
  reused_.assign(prepared.size(), false);
  for (size_t i = 0; i < prepared.size(); ++i) {
    absl::StatusOr<DatagenPrepared> p =
        DecodeDatagenPrepared(prepared[i].workload_outcome);
    if (!p.ok()) continue;
    reused_[i] = p->reuse;
    if (plan_.remove && i == 0) dataset_->unfinished = p->unfinished;
    if (plan_.remove && i == 0 && p->manifest_found) {
      // What is being removed (the node checked the manifest already).
      auto m = DatasetManifestFromJson(p->manifest, plan_.uri);
      if (m.ok()) {
        dataset_->spec = m->spec;
        dataset_->totals = m->totals;
      }
    }
  }
  dataset_->reused =
      !plan_.remove && !reused_.empty() &&
      std::all_of(reused_.begin(), reused_.end(), [](bool b) { return b; });
}

absl::Status DatagenRound::CheckReport(size_t /*node*/,
                                       const PhaseOutcome& report,
                                       const std::string& who) {
  RETURN_IF_ERROR(CheckReportFigures(report, who));
  absl::StatusOr<DatagenReport> r = DecodeDatagenReport(report.workload_report);
  if (!r.ok()) {
    return absl::DataLossError(
        absl::StrCat(who, " sent ", r.status().message()));
  }
  const uint64_t rank_bytes = report.ranks.empty() ? 0 : report.ranks[0].bytes;
  const uint64_t most =
      plan_.remove ? dataset_->totals.objects : totals_.objects;
  if (report.ranks.size() != 1 || r->bytes != rank_bytes || r->objects > most ||
      (!plan_.remove && r->bytes > totals_.bytes) ||
      (!plan_.remove && r->samples > plan_.spec.samples)) {
    return absl::DataLossError(absl::StrCat(
        who, " reported ", r->objects, " objects, ", r->bytes, " bytes, ",
        r->samples, " samples over ", report.ranks.size(),
        " stream(s): more than its share, or counts that disagree"));
  }
  return absl::OkStatus();
}

absl::Status DatagenRound::Finish(const std::vector<PhaseOutcome>& /*reports*/,
                                  RoundResult* result) {
  if (plan_.remove) {
    // Every node's share is gone: the claim (and the pending manifest that
    // let a later --remove finish this one) goes last.
    for (size_t i = 0; i < Owners(); ++i) {
      RETURN_IF_ERROR(
          ReleaseClaimOn(*nodes_[i], UriOf(i), plan_.backend, "the dataset"));
    }
    return absl::OkStatus();
  }
  const auto t0 = SteadyClock::now();
  DatasetManifest m;
  m.spec = plan_.spec;
  m.totals = totals_;
  m.run_id = plan_.run_id;
  m.created_unix_ns = NowUnixNs();
  const std::string text = DatasetManifestToJson(m);
  for (size_t i = 0; i < Owners(); ++i) {
    if (i < reused_.size() && reused_[i]) continue;
    RETURN_IF_ERROR(CommitUnderClaim(*nodes_[i], UriOf(i), kDatasetManifestName,
                                     text, plan_.backend, "the dataset",
                                     "a datagen --remove"));
  }
  result->commit_seconds =
      std::chrono::duration<double>(SteadyClock::now() - t0).count();
  return absl::OkStatus();
}

void DatagenRound::Aggregate(const std::vector<PhaseOutcome>& reports,
                             const std::vector<PrepareOutcome>& prepared,
                             RoundResult* result) {
  double busy = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    const PhaseOutcome& rep = reports[i];
    NodeResult nr;
    if (!rep.ranks.empty()) {
      nr.bytes = rep.ranks[0].bytes;
      nr.last_done_seconds = nr.first_done_seconds =
          rep.ranks[0].done_seconds + std::max(0.0, rep.start_lag_seconds);
    }
    busy += AppendNode(*nodes_[i], rep,
                       i < prepared.size() ? &prepared[i] : nullptr,
                       std::move(nr), result)
                .host_cpu_busy;
    if (auto r = DecodeDatagenReport(rep.workload_report); r.ok()) {
      if (plan_.remove) {
        dataset_->removed_objects += r->objects;
      } else {
        dataset_->written_objects += r->objects;
        dataset_->written_bytes += r->bytes;
        dataset_->written_samples += r->samples;
      }
    }
  }
  if (!reports.empty()) result->host_cpu_busy = busy / reports.size();
  result->throughput_mib_s = MibPerSecond(result->bytes, result->seconds);
  dataset_->samples_per_second =
      result->seconds > 0 ? dataset_->written_samples / result->seconds : 0;
}

}  // namespace ckpt
