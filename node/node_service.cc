#include "node/node_service.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/serving/serve_job.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "node/checkpoint/checkpoint_workload.h"
#include "node/checkpoint/visibility.h"
#include "node/dataset/datagen_workload.h"
#include "node/dataset/dataload_workload.h"
#include "node/dataset/manifest_read.h"
#include "node/serving/serve_workload.h"
#include "wire/backend_codec.h"
#include "wire/error_kind.h"
#include "wire/inspect_codec.h"
#include "wire/kinds_codec.h"
#include "wire/phase_report_codec.h"
#include "wire/prepare_codec.h"
#include "wire/round_codec.h"
#include "wire/storage_commands_codec.h"

namespace ckpt {

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

// The workloads a node runs: the checkpoint (its name is ""; a workload
// given under that name is replaced), the dataset's (datagen, dataload),
// a serving replica's (serve), and the ones it was built with besides.
NodeWorkloads WithCheckpoint(NodeWorkloads workloads) {
  workloads[""] = [] { return std::make_unique<CheckpointWorkload>(); };
  workloads[kDatagenWorkload] = [] { return NewDatagenWorkload(); };
  workloads[kDataloadWorkload] = DataloadWorkloads();
  workloads[kServeWorkload] = [] { return NewServeWorkload(); };
  return workloads;
}

}  // namespace

NodeService::NodeService(std::shared_ptr<MemoryStore> memory,
                         NodeWorkloads workloads)
    : agent_(std::move(memory)),
      workloads_(WithCheckpoint(std::move(workloads)), kCheckpointWorkload) {}

v1::InspectReply NodeService::Inspect(const v1::InspectRequest& req) {
  return Answer<v1::InspectReply>(
      req, [this](const InspectJob& job) { return Inspect(job); });
}

absl::StatusOr<Inspection> NodeService::Inspect(const InspectJob& job) {
  Inspection found;
  if (job.open_only) {  // the storage opens: only that
    RETURN_IF_ERROR(agent_.OpenStorageAt(job.steps_uri, job.backend).status());
    return found;
  }
  if (job.visible.step > 0) {  // time to visible: only that
    ASSIGN_OR_RETURN(auto loc,
                     agent_.OpenStorageAt(job.steps_uri, job.backend));
    found.visible = PollVisible(loc, job.visible);
    found.visible.lacked = ScrubSecrets(found.visible.lacked);
    return found;
  }
  if (!job.dataset_uri.empty()) {  // a dataset's look: only that
    ASSIGN_OR_RETURN(auto loc,
                     agent_.OpenStorageAt(job.dataset_uri, job.backend,
                                          LocationRoot::kAsGiven));
    ASSIGN_OR_RETURN(found.dataset,
                     LookAtDataset(*loc.storage, loc.path,
                                   EscapeForTerminal(job.dataset_uri)));
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
    if (job.steps_uri.empty()) return found;  // only the GPU check
  }
  ASSIGN_OR_RETURN(
      found.listing,
      agent_.Inspect(job.steps_uri,
                     job.probe_write ? job.run_id : std::string(),
                     job.want_metadata, job.metadata_step, job.backend));
  return found;
}

v1::PrepareReply NodeService::Prepare(const v1::PrepareRequest& req) {
  absl::StatusOr<PhaseJob> job = FromWire(req);
  if (!job.ok()) return PrepareReplyOf(job.status());
  return PrepareReplyOf(Prepare(*std::move(job)));
}

v1::PrepareReply NodeService::Prepare(v1::PrepareRequest&& req) {
  absl::StatusOr<PhaseJob> job = FromWire(std::move(req));
  if (!job.ok()) return PrepareReplyOf(job.status());
  return PrepareReplyOf(Prepare(*std::move(job)));
}

absl::StatusOr<PrepareOutcome> NodeService::Prepare(PhaseJob job) {
  return workloads_.Prepare(std::move(job), agent_.storage());
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
    const std::function<void(const v1::ActionRequest&)>& send_ask,
    double progress_interval) {
  PhaseStart start = FromWire(req);
  start.progress_interval_seconds = progress_interval;
  WorkloadPhases::SendProgress progress;
  if (on_progress) {
    progress = [&](const PhaseProgress& p) { on_progress(ToWire(p)); };
  }
  WorkloadPhases::SendAsk ask;
  if (send_ask) ask = [&](const ActionAsk& a) { send_ask(ToWire(a)); };
  return ToWire(workloads_.Run(start, progress, ask));
}

void NodeService::ActionAnswered(const v1::ActionReply& reply) {
  workloads_.Answer(FromWire(reply));
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
  if (job.release_claim) {
    ASSIGN_OR_RETURN(auto loc, agent_.OpenStorageAt(job.dir_uri, job.backend,
                                                    LocationRoot::kAsGiven));
    RETURN_IF_ERROR(
        ReleaseMakeClaim(*loc.storage, JoinPath(loc.path, kMakeClaimDir)));
    return PutResultOutcome{};
  }
  if (job.check_only) {
    ASSIGN_OR_RETURN(const bool exists,
                     agent_.FileExists(job.dir_uri, job.name, job.backend));
    return PutResultOutcome{exists && !job.overwrite};
  }
  RETURN_IF_ERROR(agent_.WriteFile(job.dir_uri, job.name, job.data, job.backend,
                                   LocationRoot::kAsGiven));
  return PutResultOutcome{};
}

v1::ClaimReply NodeService::Claim(const v1::ClaimRequest& req) {
  return Answer<v1::ClaimReply>(
      req, [this](const ClaimJob& job) { return Claim(job); });
}

absl::StatusOr<ClaimOutcome> NodeService::Claim(const ClaimJob& job) {
  ClaimOutcome outcome;
  if (job.release) {
    RETURN_IF_ERROR(agent_.ReleaseClaim(job.steps_uri, job.step, job.claim_name,
                                        job.backend));
    return outcome;
  }
  auto name = agent_.Claim(job.steps_uri, job.step, job.run_id, job.backend);
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
  RETURN_IF_ERROR(agent_.Cleanup(job.steps_uri, job.remove_steps,
                                 job.file_names, job.backend, job.abort_uploads,
                                 &outcome.aborted_uploads, job.run_id));
  return outcome;
}

v1::AbortReply NodeService::Abort(const v1::AbortRequest& req) {
  workloads_.Abort(req.reason());
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
