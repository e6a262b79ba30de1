#include "coordinator/serving/serve_round.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/clock.h"
#include "common/dataset/dataset_manifest.h"
#include "common/error_kind.h"
#include "common/serving/serve_options.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/storage_commands.h"
#include "common/storage_uri.h"
#include "coordinator/claimed_make.h"
#include "coordinator/reply_check.h"
#include "coordinator/round/node_sums.h"
#include "coordinator/round/round_protocol.h"
#include "coordinator/serving/serve_fleet.h"
#include "wire/serve_codec.h"

namespace ckpt {

static_assert(kMaxServeStaggerSeconds <= kMaxStartDelaySeconds,
              "serve.stagger's bound is the round protocol's");

ServeRound::ServeRound(std::vector<NodeClient*> nodes, ServePlan plan,
                       ServeAction action, int index, ServingModelResult* model)
    : nodes_(std::move(nodes)),
      plan_(std::move(plan)),
      action_(action),
      index_(index),
      model_(model) {}

std::string ServeRound::UriOf(size_t node) const {
  return plan_.node_local ? ForNode(plan_.uri, nodes_[node]->index())
                          : plan_.uri;
}

std::string ServeRoundName(const RoundResult& r) {
  if (r.phase == Phase::kLoad) return absl::StrCat("load ", r.index);
  return r.index == 0 ? "remove model" : "make model";
}

void ServeRound::Begin(RoundResult* result) {
  result->workload = kServeWorkload;
  result->phase = action_ == ServeAction::kLoad ? Phase::kLoad : Phase::kSave;
  result->index = action_ == ServeAction::kRemove ? 0 : index_;
}

std::string ServeRound::Title(RoundNameForm form) const {
  std::string what = action_ == ServeAction::kLoad
                         ? absl::StrCat("load ", index_)
                     : action_ == ServeAction::kMake ? "make model"
                                                     : "remove model";
  return form == RoundNameForm::kLog ? absl::StrCat("serve ", what, " round")
                                     : what;
}

uint64_t ServeRound::ProgressBytes() const {
  if (action_ == ServeAction::kMake) {
    return plan_.node_local ? plan_.model_bytes * nodes_.size()
                            : plan_.model_bytes;
  }
  uint64_t sum = 0;
  for (const ServePrepared& p : prepared_) sum += p.read_bytes;
  return sum;
}

PhaseJob ServeRound::BuildPrepare(size_t node) {
  ServeJob job;
  job.action = action_;
  job.model_uri = UriOf(node);
  job.generated = plan_.generated;
  job.model = plan_.model;
  job.share_index = plan_.node_local ? 0 : static_cast<uint32_t>(node);
  job.share_count = plan_.node_local ? 1 : static_cast<uint32_t>(nodes_.size());
  job.manifest_owner = node < Owners();
  job.write_threads = plan_.write_threads;
  job.block_size = plan_.block_size;
  job.fsync = plan_.fsync;
  job.ranks = plan_.ranks;
  job.read_mode = plan_.read_mode;
  job.split = plan_.split;
  job.concurrency = plan_.concurrency;
  job.chunk_bytes = plan_.chunk_bytes;
  job.download_path = plan_.download_path;
  job.hold = plan_.hold;
  job.on_gpu = plan_.on_gpu;
  job.cache_mode = plan_.cache_mode;
  job.backend = plan_.backend;
  PhaseJob prepare;
  prepare.workload = kServeWorkload;
  prepare.workload_job = EncodeServeJob(job);
  return prepare;
}

void ServeRound::Prepared(const std::vector<PrepareOutcome>& prepared,
                          RoundResult* result) {
  prepared_.assign(prepared.size(), ServePrepared{});
  reused_.assign(prepared.size(), false);
  for (size_t i = 0; i < prepared.size(); ++i) {
    absl::StatusOr<ServePrepared> p =
        DecodeServePrepared(prepared[i].workload_outcome);
    if (!p.ok()) continue;
    prepared_[i] = *p;
    reused_[i] = p->reuse;
  }
  if (action_ == ServeAction::kMake) {
    model_->reused =
        !reused_.empty() &&
        std::all_of(reused_.begin(), reused_.end(), [](bool b) { return b; });
  }
  if (action_ == ServeAction::kLoad && !prepared_.empty()) {
    model_->files = prepared_[0].files;
    model_->tensors = prepared_[0].tensors;
    model_->bytes = prepared_[0].model_bytes;
    SumUpColdReads(prepared, Title(RoundNameForm::kLog), result);
  }
}

double ServeRound::StartDelaySeconds(size_t node) const {
  return action_ == ServeAction::kLoad
             ? static_cast<double>(node) * plan_.stagger_seconds
             : 0;
}

namespace {

// A load report's headers (every rank read every file's) and, in download
// mode, its copy (the files whole, with the index and config.json when
// there, in reads of at most chunk_bytes, before the headers), against
// node's prepare `p`.
absl::Status CheckHeadersAndDownload(const ServeReport& r,
                                     const ServePrepared& p,
                                     const ServePlan& plan,
                                     const std::string& who) {
  const bool download = plan.read_mode == ServeReadMode::kDownload;
  if (download) {
    const uint64_t least_reads =
        (p.model_bytes + plan.chunk_bytes - 1) / plan.chunk_bytes;
    const uint64_t most_reads =
        least_reads + p.files + 3 + kMaxModelSideBytes / plan.chunk_bytes;
    std::string wrong;
    if (r.download_bytes < p.model_bytes ||
        r.download_bytes > p.model_bytes + kMaxModelSideBytes) {
      wrong = absl::StrCat(
          r.download_bytes, " bytes copied; expected the ", p.model_bytes,
          " of the model's files (and its index and config.json)");
    } else if (r.download_requests < least_reads ||
               r.download_requests > most_reads) {
      wrong = absl::StrCat(r.download_requests, " reads; expected ",
                           least_reads, " to ", most_reads, " of at most ",
                           plan.chunk_bytes, " bytes");
    } else if (!IsReportDuration(r.download_seconds) ||
               r.download_seconds > r.headers_seconds) {
      wrong = absl::StrCat("done at ", r.download_seconds,
                           " s; expected before the headers were read (",
                           r.headers_seconds, " s)");
    }
    if (!wrong.empty()) {
      return absl::DataLossError(
          absl::StrCat(who, " reported a download: ", wrong));
    }
  } else if (r.download_bytes != 0 || r.download_seconds != 0 ||
             r.download_requests != 0) {
    return absl::DataLossError(absl::StrCat(who, " reported a download in ",
                                            std::string(Name(plan.read_mode)),
                                            " mode"));
  }
  // Every rank read every file's header: its 8 bytes, then its N.
  if (r.header_reads != 2 * p.files * plan.ranks ||
      r.header_bytes != p.header_bytes * plan.ranks) {
    return absl::DataLossError(absl::StrCat(
        who, " reported ", r.header_reads, " header reads of ", r.header_bytes,
        " bytes; expected each of ", plan.ranks, " ranks to read the ", p.files,
        " files' headers (", p.header_bytes, " bytes) once"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ServeRound::CheckReport(size_t node, const PhaseOutcome& report,
                                     const std::string& who) {
  RETURN_IF_ERROR(CheckReportFigures(report, who));
  absl::StatusOr<ServeReport> r = DecodeServeReport(report.workload_report);
  if (!r.ok()) {
    return absl::DataLossError(
        absl::StrCat(who, " sent ", r.status().message()));
  }
  // A failed node's report says what it measured before the failure; its
  // own error is the round's (its counts need not be whole).
  if (!report.status.ok()) return absl::OkStatus();
  if (action_ != ServeAction::kLoad) {
    if (report.ranks.size() != 1 || r->bytes != report.ranks[0].bytes ||
        (action_ == ServeAction::kMake && r->bytes > plan_.model_bytes)) {
      return absl::DataLossError(
          absl::StrCat(who, " reported ", r->bytes, " bytes written over ",
                       report.ranks.size(),
                       " stream(s): more than the model, or counts "
                       "that disagree"));
    }
    return absl::OkStatus();
  }
  // Every rank read its plan's bytes, each rank once.
  const uint64_t planned =
      node < prepared_.size() ? prepared_[node].read_bytes : 0;
  uint64_t sum = 0;
  bool ok =
      r->ranks.size() == plan_.ranks && report.ranks.size() == plan_.ranks;
  for (size_t k = 0; ok && k < r->ranks.size(); ++k) {
    const ServeRankReport& rank = r->ranks[k];
    ok = report.ranks[k].rank == k && report.ranks[k].bytes == rank.bytes &&
         IsReportDuration(rank.first_byte_seconds) &&
         IsReportDuration(rank.last_byte_seconds) &&
         rank.first_byte_seconds <= rank.last_byte_seconds;
    sum += rank.bytes;
  }
  const ServePrepared none;
  RETURN_IF_ERROR(CheckHeadersAndDownload(
      *r, node < prepared_.size() ? prepared_[node] : none, plan_, who));
  if (!ok || sum != planned || !IsReportDuration(r->headers_seconds)) {
    return absl::DataLossError(absl::StrCat(
        who, " reported ", r->ranks.size(), " rank(s) reading ", sum,
        " bytes; expected ", plan_.ranks, " ranks reading the ", planned,
        " bytes of their plan, each once, with times in order"));
  }
  return absl::OkStatus();
}

absl::Status ServeRound::Finish(const std::vector<PhaseOutcome>& /*reports*/,
                                RoundResult* result) {
  if (action_ != ServeAction::kMake) return absl::OkStatus();
  const auto t0 = SteadyClock::now();
  ModelManifest m;
  m.model = plan_.model;
  m.bytes = plan_.model_bytes;
  m.files = plan_.model_files;
  m.run_id = plan_.run_id;
  m.created_unix_ns = NowUnixNs();
  const std::string text = ModelManifestToJson(m);
  for (size_t i = 0; i < Owners(); ++i) {
    if (i < reused_.size() && reused_[i]) continue;
    RETURN_IF_ERROR(CommitUnderClaim(*nodes_[i], UriOf(i), kModelManifestName,
                                     text, plan_.backend, "the model",
                                     "a serve removal"));
  }
  result->commit_seconds =
      std::chrono::duration<double>(SteadyClock::now() - t0).count();
  return absl::OkStatus();
}

namespace {

// Node `node`'s replica (its report `rep`, started `lag` after the common
// instant) added to a load round's section: its ranks, and its times from
// the round's start.
void AddReplica(int node, std::string host, double lag, const PhaseOutcome& rep,
                const ServeReport& r, ReplicaLoadResult* load) {
  ReplicaLoadResult::Replica p;
  p.node = node;
  p.host = std::move(host);
  p.start_seconds = lag;
  p.headers_seconds = lag + r.headers_seconds;
  p.header_reads = r.header_reads;
  for (const ServeObjectReport& o : r.objects) {
    p.objects.push_back({o.name, o.requests, o.retries, o.throttles});
  }
  p.cached_at_start_bytes =
      std::min(r.cached_at_start_bytes, load->model_bytes);
  if (r.download_bytes > 0) {
    p.download_seconds = lag + r.download_seconds;
    p.download_bytes = r.download_bytes;
    p.download_requests = r.download_requests;
    p.download_cached_bytes = r.download_cached_bytes;
  }
  p.retries = r.download_retries;
  p.throttles = r.download_throttles;
  double first = -1, last = 0;
  for (size_t k = 0; k < r.ranks.size(); ++k) {
    const ServeRankReport& rank = r.ranks[k];
    ReplicaLoadResult::Rank out;
    out.node = node;
    out.rank = static_cast<uint32_t>(k);
    out.bytes = rank.bytes;
    out.requests = rank.requests;
    out.first_byte_seconds = lag + rank.first_byte_seconds;
    out.last_byte_seconds = lag + rank.last_byte_seconds;
    out.retries = rank.retries;
    out.throttles = rank.throttles;
    out.cached_bytes = rank.cached_bytes;
    load->rank_loads.push_back(out);
    p.bytes += rank.bytes;
    p.requests += rank.requests;
    p.retries += rank.retries;
    p.throttles += rank.throttles;
    p.cached_bytes += rank.cached_bytes;
    if (rank.bytes > 0 && (first < 0 || out.first_byte_seconds < first)) {
      first = out.first_byte_seconds;
    }
    last = std::max(last, out.last_byte_seconds);
  }
  for (const RankOutcome& k : rep.ranks) {
    last = std::max(last, lag + k.done_seconds);
  }
  p.first_byte_seconds = std::max(first, 0.0);
  p.load_seconds = last;
  p.loaded_seconds = std::max(0.0, last - lag);
  p.mib_per_second = MibPerSecond(p.bytes, p.loaded_seconds);
  load->replicas.push_back(p);
}

}  // namespace

void ServeRound::Aggregate(const std::vector<PhaseOutcome>& reports,
                           const std::vector<PrepareOutcome>& prepared,
                           RoundResult* result) {
  auto load = std::make_shared<ReplicaLoadResult>();
  load->read_mode = plan_.read_mode;
  load->split = plan_.split;
  load->ranks = plan_.ranks;
  load->concurrency = plan_.concurrency;
  load->chunk_bytes = plan_.chunk_bytes;
  load->hold = plan_.hold || plan_.on_gpu;
  load->on_gpu = plan_.on_gpu;
  load->verified = plan_.generated;
  if (!prepared_.empty()) {
    load->model_bytes = prepared_[0].model_bytes;
    load->read_bytes = prepared_[0].read_bytes;
  }
  double busy = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    const PhaseOutcome& rep = reports[i];
    // Its start since the round's: its stagger, then its lag against the
    // instant it was given.
    const double lag =
        StartDelaySeconds(i) + std::max(0.0, rep.start_lag_seconds);
    NodeResult nr;
    for (const RankOutcome& k : rep.ranks) {
      nr.bytes += k.bytes;
      nr.ranks.push_back(k.rank);
    }
    if (!rep.ranks.empty()) {
      double first = rep.ranks[0].done_seconds, last = first;
      for (const RankOutcome& k : rep.ranks) {
        first = std::min(first, k.done_seconds);
        last = std::max(last, k.done_seconds);
      }
      nr.first_done_seconds = first + lag;
      nr.last_done_seconds = last + lag;
    }
    busy += AppendNode(*nodes_[i], rep,
                       i < prepared.size() ? &prepared[i] : nullptr,
                       std::move(nr), result)
                .host_cpu_busy;
    absl::StatusOr<ServeReport> r = DecodeServeReport(rep.workload_report);
    if (!r.ok()) continue;
    if (action_ == ServeAction::kMake) {
      model_->written_files += r->files;
      model_->written_bytes += r->bytes;
      continue;
    }
    if (action_ == ServeAction::kRemove) {
      model_->removed = true;
      model_->files += r->files;
      continue;
    }
    AddReplica(nodes_[i]->index(), nodes_[i]->host(), lag, rep, *r, load.get());
  }
  if (!reports.empty()) result->host_cpu_busy = busy / reports.size();
  result->throughput_mib_s = MibPerSecond(result->bytes, result->seconds);
  if (action_ == ServeAction::kMake) model_->written_seconds = result->seconds;
  if (action_ == ServeAction::kLoad) {
    // Every byte of every replica checked against the pattern.
    result->verified =
        plan_.generated && load->replicas.size() == nodes_.size();
    load->fleet = FleetOf(load->replicas);
    load->objects = HotObjectsOf(load->replicas);
    result->sections[kReplicaLoadSection] = std::move(load);
  }
}

}  // namespace ckpt
