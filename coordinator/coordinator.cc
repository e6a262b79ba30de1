#include "coordinator/coordinator.h"

#include <unistd.h>

#include <chrono>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "coordinator/reply_check.h"

namespace ckpt {

std::string NewRunId() {
  std::random_device rd;
  auto now = std::chrono::system_clock::now().time_since_epoch().count();
  return absl::StrFormat("%08x-%04x", static_cast<uint32_t>(rd() ^ now),
                         static_cast<uint32_t>(getpid()) & 0xffff);
}

Coordinator::Coordinator(const Config& config, std::vector<NodeClient*> nodes,
                         ProgressPrinter* progress, std::string run_id,
                         const WorkloadRegistry& registry)
    : config_(config),
      ctx_(config_, std::move(nodes), progress,
           run_id.empty() ? NewRunId() : std::move(run_id)),
      workload_(registry.New(config_.run.workload)) {}

absl::Status Coordinator::Preflight(RunResult* result) {
  result->run_id = ctx_.run_id();
  result->workload = config_.run.workload;
  RETURN_IF_ERROR(workload_.status());
  RETURN_IF_ERROR(ctx_.OpenOnEveryNode());
  return (*workload_)->Preflight(ctx_, result);
}

absl::Status Coordinator::PutResult(const std::string& dir_uri,
                                    const std::string& name,
                                    const std::string& data, bool check_only,
                                    bool overwrite) {
  if (ctx_.nodes().empty())
    return absl::UnavailableError("no node to write it");
  PutResultJob job{dir_uri, name, data, check_only, overwrite, ctx_.backend()};
  auto put = ctx_.nodes()[0]->PutResult(job);
  const std::string where =
      absl::StrCat(JoinPath(dir_uri, name), " (node ", ctx_.nodes()[0]->index(),
                   ", ", ctx_.nodes()[0]->host(), ")");
  if (IsNodeError(put.status())) {
    // The node could not write it: worth another try, whatever its kind.
    return absl::UnavailableError(
        absl::StrCat(where, ": ", put.status().message()));
  }
  ASSIGN_OR_RETURN(const PutResultOutcome rep, std::move(put));
  if (rep.exists) {
    return absl::AlreadyExistsError(absl::StrCat(
        where,
        " is there from an earlier run; refusing to replace it (expected a "
        "results prefix of this run's own, or --overwrite)"));
  }
  return absl::OkStatus();
}

ExitCode Coordinator::FailureCode() const {
  if (ctx_.interrupted()) return ExitCode::kInterrupted;
  for (const NodeClient* n : ctx_.nodes()) {
    if (n->lost()) return ExitCode::kInterrupted;
  }
  return ExitCode::kFailed;
}

absl::Status Coordinator::Run(RunResult* result) {
  result->run_id = ctx_.run_id();
  result->workload = config_.run.workload;  // what the summary shows it as
  ctx_.Publish(result);
  RETURN_IF_ERROR(workload_.status());
  const absl::Status s = (*workload_)->Run(ctx_, result);
  ctx_.NoteListings(result);
  const bool interrupted = ctx_.interrupted();
  const absl::Status retired =
      ctx_.RetireSteps(/*finished=*/s.ok() && !interrupted, result);
  if (interrupted) return absl::CancelledError(ctx_.interrupt_reason());
  RETURN_IF_ERROR(s);
  return retired;
}

}  // namespace ckpt
