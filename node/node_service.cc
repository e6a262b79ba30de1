#include "node/node_service.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "node/checkpoint/visibility.h"
#include "wire/backend_codec.h"
#include "wire/error_kind.h"
#include "wire/inspect_codec.h"
#include "wire/kinds_codec.h"
#include "wire/phase_report_codec.h"
#include "wire/round_codec.h"
#include "wire/storage_commands_codec.h"

namespace ckpt {

namespace {

// The io settings of a prepare; NodeAgent::Prepare checks their values
// through the key table (out of range ones are refused there).
absl::StatusOr<IoOptions> IoFromWire(const v1::IoOptions& w) {
  IoOptions io;
  ASSIGN_OR_RETURN(io.cache_mode, FromWire(w.cache_mode(), "io.cache_mode"));
  ASSIGN_OR_RETURN(io.checksum, FromWire(w.checksum(), "io.checksum"));
  io.block_size = w.block_size();
  io.fsync = w.fsync();
  io.direct_write = w.direct_write();
  io.direct_read = w.direct_read();
  io.queue_depth = w.queue_depth();
  return io;
}

}  // namespace

namespace {

// Builds the job from a request; with a mutable one (Req non-const) it
// consumes it: tensor names are moved and each file's segments freed as
// soon as they are converted, so the request and the job never both hold
// a 100,000-tensor plan.
template <typename Req>
absl::StatusOr<PhaseJob> BuildJob(Req& req) {
  constexpr bool kConsume = !std::is_const_v<Req>;
  PhaseJob job;
  ASSIGN_OR_RETURN(const Phase phase, FromWire(req.phase(), "phase"));
  ASSIGN_OR_RETURN(job.io, IoFromWire(req.io()));
  ASSIGN_OR_RETURN(job.backend, FromWire(req.backend()));
  ASSIGN_OR_RETURN(job.loop.accelerator,
                   FromWire(req.loop().accelerator(), "cluster.accelerator"));
  ASSIGN_OR_RETURN(job.loop.staging,
                   FromWire(req.loop().staging(), "cluster.staging"));
  job.run_id = req.run_id();
  job.round_id = req.round_id();
  job.save = phase == Phase::kSave;
  job.seed = req.seed();
  job.step = req.step();
  job.step_uri = req.step_uri();
  job.loop.async = req.loop().async();
  job.loop.interval_seconds = req.loop().interval_seconds();
  auto names = std::make_shared<std::vector<std::string>>();
  names->reserve(static_cast<size_t>(req.tensor_names_size()));
  if constexpr (kConsume) {
    for (auto& n : *req.mutable_tensor_names()) names->push_back(std::move(n));
    google::protobuf::RepeatedPtrField<std::string>().Swap(
        req.mutable_tensor_names());
  } else {
    names->assign(req.tensor_names().begin(), req.tensor_names().end());
  }
  auto& ranks = [&]() -> auto& {
    if constexpr (kConsume) {
      return *req.mutable_ranks();
    } else {
      return req.ranks();
    }
  }
  ();
  for (auto& r : ranks) {
    RankJob rj;
    rj.rank = r.rank();
    auto& files = [&]() -> auto& {
      if constexpr (kConsume) {
        return *r.mutable_files();
      } else {
        return r.files();
      }
    }
    ();
    for (auto& f : files) {
      FileJob fj;
      // The bytes are the writer's: a shifted load's file is another rank's.
      fj.rank = f.other_rank() ? f.written_by_rank() : r.rank();
      fj.index = f.index();
      fj.path = f.name();
      fj.size = f.size();
      fj.ranges = f.ranges();
      fj.tensor_names = names;
      fj.segments.reserve(static_cast<size_t>(f.segments_size()));
      for (const auto& s : f.segments()) {
        fj.segments.push_back({s.tensor_index(), s.tensor_offset(), s.length(),
                               s.file_offset(), s.checksum(), s.has_checksum(),
                               s.keep_offset(), s.keep_length()});
      }
      if constexpr (kConsume) {
        google::protobuf::RepeatedPtrField<v1::Segment>().Swap(
            f.mutable_segments());
      }
      rj.files.push_back(std::move(fj));
    }
    job.ranks.push_back(std::move(rj));
  }
  return job;
}

}  // namespace

absl::StatusOr<PhaseJob> JobFromProto(const v1::PrepareRequest& req) {
  return BuildJob(req);
}

absl::StatusOr<PhaseJob> JobFromProto(v1::PrepareRequest&& req) {
  return BuildJob(req);
}

namespace {

// A request answered through its domain call: the request converted (a
// bad one is answered with its error), the call made, its outcome or its
// error converted back.
template <typename Reply, typename Request, typename Call>
Reply Answer(const Request& req, Call call) {
  Reply failed;
  auto job = FromWire(req);
  if (!job.ok()) {
    SetError(job.status(), &failed);
    return failed;
  }
  auto outcome = call(*job);
  if (!outcome.ok()) {
    SetError(outcome.status(), &failed);
    return failed;
  }
  return ToWire(*std::move(outcome));
}

}  // namespace

v1::InspectReply NodeService::Inspect(const v1::InspectRequest& req) {
  return Answer<v1::InspectReply>(
      req, [this](const InspectJob& job) { return Inspect(job); });
}

absl::StatusOr<Inspection> NodeService::Inspect(const InspectJob& job) {
  Inspection found;
  if (job.visible.step > 0) {  // time to visible: only that
    ASSIGN_OR_RETURN(auto loc,
                     agent_.OpenStorageAt(job.checkpoints_uri, job.backend));
    found.visible = PollVisible(loc, job.visible);
    found.visible.lacked = ScrubSecrets(found.visible.lacked);
    return found;
  }
  if (job.accelerator == Accelerator::kGpu) {
    auto gpus = DescribeGpus();
    if (!gpus.ok()) {
      return absl::Status(gpus.status().code(),
                          absl::StrCat("cluster.accelerator (ACCELERATOR) = "
                                       "'gpu': ",
                                       gpus.status().message()));
    }
    found.gpus = *std::move(gpus);
    if (job.checkpoints_uri.empty()) return found;  // only the GPU check
  }
  ASSIGN_OR_RETURN(
      found.listing,
      agent_.Inspect(job.checkpoints_uri,
                     job.probe_write ? job.run_id : std::string(),
                     job.want_metadata, job.metadata_step, job.backend));
  return found;
}

v1::PrepareReply NodeService::Prepare(const v1::PrepareRequest& req) {
  if (!req.workload().empty()) return workloads_.Prepare(req, agent_.storage());
  Prepared(req);
  absl::StatusOr<PhaseJob> job = JobFromProto(req);
  if (!job.ok()) return PrepareReplyOf(job.status());
  return PrepareReplyOf(agent_.Prepare(*std::move(job)));
}

v1::PrepareReply NodeService::Prepare(v1::PrepareRequest&& req) {
  if (!req.workload().empty()) return workloads_.Prepare(req, agent_.storage());
  Prepared(req);
  absl::StatusOr<PhaseJob> job = JobFromProto(std::move(req));
  if (!job.ok()) return PrepareReplyOf(job.status());
  return PrepareReplyOf(agent_.Prepare(*std::move(job)));
}

void NodeService::Prepared(const v1::PrepareRequest& req) {
  prepared_ranks_.clear();
  for (const auto& r : req.ranks()) prepared_ranks_.push_back(r.rank());
  prepared_round_ = req.round_id();
}

v1::PrepareReply NodeService::PrepareReplyOf(
    const absl::StatusOr<PrepareOutcome>& out) {
  if (!out.ok()) {
    v1::PrepareReply rep;
    SetError(out.status(), &rep);
    return rep;
  }
  return ToWire(*out);
}

v1::PhaseReport NodeService::StartPhase(
    const v1::StartPhaseRequest& req,
    const std::function<void(const v1::Progress&)>& on_progress,
    const WorkloadPhases::SendAsk& send_ask, double progress_interval) {
  if (workloads_.Owns(req.run_id(), req.round_id())) {
    // A node without a way to ask (a blocking in-process caller that takes
    // none) has every ask refused at once.
    WorkloadPhases::SendAsk ask = send_ask;
    if (!ask) {
      ask = [this](const v1::ActionRequest& a) {
        workloads_.Answer(
            ToWire(ActionAnswer{a.round_id(),
                                a.action_id(),
                                absl::FailedPreconditionError(
                                    "this node's caller takes no actions"),
                                {}}));
      };
    }
    return workloads_.Run(req, on_progress, ask, progress_interval);
  }
  std::vector<uint32_t> ranks = prepared_ranks_;
  uint64_t round = req.round_id();
  ProgressFn fn;
  if (on_progress) {
    fn = [&, ranks, round](const std::vector<uint64_t>& bytes) {
      PhaseProgress p{round, {}};
      for (size_t i = 0; i < bytes.size() && i < ranks.size(); ++i) {
        p.ranks.push_back({ranks[i], bytes[i], 0});
      }
      on_progress(ToWire(p));
    };
  }
  PhaseOutcome o = agent_.RunPhase(req.run_id(), round, req.start_at_unix_ns(),
                                   fn, progress_interval);
  o.round_id = round;
  return ToWire(o);
}

v1::CommitReply NodeService::Commit(v1::CommitRequest req) {
  v1::CommitReply rep;
  auto job = FromWire(std::move(req));
  absl::Status s = job.ok() ? Commit(*job) : job.status();
  if (!s.ok()) SetError(s, &rep);
  return rep;
}

absl::Status NodeService::Commit(const CommitJob& job) {
  return agent_.Commit(job.step_uri, job.metadata, job.backend);
}

v1::PutResultReply NodeService::PutResult(const v1::PutResultRequest& req) {
  return Answer<v1::PutResultReply>(
      req, [this](const PutResultJob& job) { return PutResult(job); });
}

absl::StatusOr<PutResultOutcome> NodeService::PutResult(
    const PutResultJob& job) {
  if (job.check_only) {
    ASSIGN_OR_RETURN(const bool exists,
                     agent_.FileExists(job.dir_uri, job.name, job.backend));
    return PutResultOutcome{exists && !job.overwrite};
  }
  RETURN_IF_ERROR(
      agent_.WriteFile(job.dir_uri, job.name, job.data, job.backend));
  return PutResultOutcome{};
}

v1::ClaimReply NodeService::Claim(const v1::ClaimRequest& req) {
  return Answer<v1::ClaimReply>(
      req, [this](const ClaimJob& job) { return Claim(job); });
}

absl::StatusOr<ClaimOutcome> NodeService::Claim(const ClaimJob& job) {
  ClaimOutcome outcome;
  if (job.release) {
    RETURN_IF_ERROR(agent_.ReleaseClaim(job.checkpoints_uri, job.step,
                                        job.claim_name, job.backend));
    return outcome;
  }
  auto name =
      agent_.Claim(job.checkpoints_uri, job.step, job.run_id, job.backend);
  if (absl::IsAlreadyExists(name.status())) {
    outcome.taken = true;
    outcome.holder = std::string(name.status().message());
    return outcome;
  }
  ASSIGN_OR_RETURN(outcome.claim_name, std::move(name));
  return outcome;
}

v1::CleanupReply NodeService::Cleanup(const v1::CleanupRequest& req) {
  return Answer<v1::CleanupReply>(
      req, [this](const CleanupJob& job) { return Cleanup(job); });
}

absl::StatusOr<CleanupOutcome> NodeService::Cleanup(const CleanupJob& job) {
  CleanupOutcome outcome;
  RETURN_IF_ERROR(agent_.Cleanup(job.checkpoints_uri, job.remove_steps,
                                 job.file_names, job.backend, job.abort_uploads,
                                 &outcome.aborted_uploads, job.run_id));
  return outcome;
}

v1::AbortReply NodeService::Abort(const v1::AbortRequest& req) {
  agent_.Abort(req.reason());
  workloads_.Abort();
  return {};
}

v1::PingReply NodeService::Ping(const v1::PingRequest&) {
  v1::PingReply rep;
  rep.set_node_unix_ns(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count());
  return rep;
}

}  // namespace ckpt
