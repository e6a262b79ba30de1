#include "wire/storage_commands_codec.h"

#include <algorithm>
#include <utility>

#include "common/secrets.h"
#include "common/status_macros.h"
#include "wire/backend_codec.h"

namespace ckpt {

v1::CommitRequest ToWire(CommitJob job) {
  v1::CommitRequest w;
  w.set_run_id(job.run_id);
  w.set_round_id(job.round_id);
  w.set_step_uri(job.step_uri);
  w.set_metadata(std::move(job.metadata));
  *w.mutable_backend() = ToWire(job.backend);
  return w;
}

absl::StatusOr<CommitJob> FromWire(v1::CommitRequest w) {
  CommitJob job;
  job.run_id = w.run_id();
  job.round_id = w.round_id();
  job.step_uri = w.step_uri();
  job.metadata = std::move(*w.mutable_metadata());
  ASSIGN_OR_RETURN(job.backend, FromWire(w.backend()));
  return job;
}

v1::ClaimRequest ToWire(const ClaimJob& job) {
  v1::ClaimRequest w;
  w.set_run_id(job.run_id);
  w.set_steps_uri(job.steps_uri);
  w.set_step(job.step);
  w.set_release(job.release);
  w.set_claim_name(job.claim_name);
  *w.mutable_backend() = ToWire(job.backend);
  return w;
}

absl::StatusOr<ClaimJob> FromWire(const v1::ClaimRequest& w) {
  ClaimJob job;
  job.run_id = w.run_id();
  job.steps_uri = w.steps_uri();
  job.step = w.step();
  job.release = w.release();
  job.claim_name = w.claim_name();
  ASSIGN_OR_RETURN(job.backend, FromWire(w.backend()));
  return job;
}

v1::CleanupRequest ToWire(const CleanupJob& job) {
  v1::CleanupRequest w;
  w.set_run_id(job.run_id);
  w.set_steps_uri(job.steps_uri);
  for (uint64_t step : job.remove_steps) w.add_remove_steps(step);
  for (const auto& name : job.file_names) w.add_file_names(name);
  w.set_abort_uploads(job.abort_uploads);
  *w.mutable_backend() = ToWire(job.backend);
  return w;
}

absl::StatusOr<CleanupJob> FromWire(const v1::CleanupRequest& w) {
  CleanupJob job;
  job.run_id = w.run_id();
  job.steps_uri = w.steps_uri();
  job.remove_steps.assign(w.remove_steps().begin(), w.remove_steps().end());
  job.file_names.assign(w.file_names().begin(), w.file_names().end());
  job.abort_uploads = w.abort_uploads();
  ASSIGN_OR_RETURN(job.backend, FromWire(w.backend()));
  return job;
}

v1::PutResultRequest ToWire(const PutResultJob& job) {
  v1::PutResultRequest w;
  w.set_dir_uri(job.dir_uri);
  w.set_name(job.name);
  w.set_data(job.data);
  w.set_check_only(job.check_only);
  w.set_overwrite(job.overwrite);
  *w.mutable_backend() = ToWire(job.backend);
  w.set_release_claim(job.release_claim);
  return w;
}

absl::StatusOr<PutResultJob> FromWire(const v1::PutResultRequest& w) {
  PutResultJob job;
  job.dir_uri = w.dir_uri();
  job.name = w.name();
  job.data = w.data();
  job.check_only = w.check_only();
  job.overwrite = w.overwrite();
  ASSIGN_OR_RETURN(job.backend, FromWire(w.backend()));
  job.release_claim = w.release_claim();
  return job;
}

v1::ClaimReply ToWire(const ClaimOutcome& outcome) {
  v1::ClaimReply w;
  w.set_claim_name(outcome.claim_name);
  if (outcome.taken) {
    w.set_taken(true);
    w.set_error(ScrubSecrets(outcome.holder));
    // What an older coordinator read with `taken` (AlreadyExists).
    w.set_error_kind(v1::ERROR_KIND_BAD_INPUT);
  }
  return w;
}

ClaimOutcome FromWire(const v1::ClaimReply& w) {
  ClaimOutcome outcome;
  outcome.taken = w.taken();
  if (outcome.taken) outcome.holder = w.error();
  outcome.claim_name = w.claim_name();
  return outcome;
}

v1::CleanupReply ToWire(const CleanupOutcome& outcome) {
  v1::CleanupReply w;
  w.set_aborted_uploads(static_cast<uint64_t>(outcome.aborted_uploads));
  return w;
}

CleanupOutcome FromWire(const v1::CleanupReply& w) {
  CleanupOutcome outcome;
  outcome.aborted_uploads =
      static_cast<int>(std::min<uint64_t>(w.aborted_uploads(), 1u << 30));
  return outcome;
}

v1::PutResultReply ToWire(const PutResultOutcome& outcome) {
  v1::PutResultReply w;
  w.set_exists(outcome.exists);
  return w;
}

PutResultOutcome FromWire(const v1::PutResultReply& w) {
  return PutResultOutcome{w.exists()};
}

}  // namespace ckpt
