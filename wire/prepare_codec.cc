#include "wire/prepare_codec.h"

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/checkpoint/checkpoint_options.h"
#include "common/config.h"
#include "common/status_macros.h"
#include "wire/backend_codec.h"
#include "wire/kinds_codec.h"

namespace ckpt {
namespace {

// The io settings of a prepare; CheckpointWorkload::Prepare checks their values
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

void IoToWire(const IoOptions& io, v1::IoOptions* w) {
  w->set_block_size(io.block_size);
  w->set_fsync(io.fsync);
  w->set_direct_write(io.direct_write);
  w->set_direct_read(io.direct_read);
  w->set_cache_mode(ToWire(io.cache_mode));
  w->set_checksum(ToWire(io.checksum));
  w->set_queue_depth(io.queue_depth);
}

// Builds the message from a job; with a mutable one (Job non-const) it
// consumes it: each file's segments are freed once converted.
template <typename Job>
v1::PrepareRequest BuildRequest(Job& job) {
  constexpr bool kConsume = !std::is_const_v<Job>;
  v1::PrepareRequest req;
  req.set_run_id(job.run_id);
  req.set_round_id(job.round_id);
  if (!job.workload.empty()) {
    req.set_workload(job.workload);
    req.set_workload_job(job.workload_job);
    return req;
  }
  req.set_phase(ToWire(job.save ? Phase::kSave : Phase::kLoad));
  req.set_seed(job.seed);
  req.set_step(job.step);
  req.set_step_uri(job.step_uri);
  IoToWire(job.io, req.mutable_io());
  *req.mutable_backend() = ToWire(job.backend);
  auto* loop = req.mutable_loop();
  loop->set_accelerator(ToWire(job.loop.accelerator));
  loop->set_staging(ToWire(job.loop.staging));
  loop->set_async(job.loop.async);
  loop->set_interval_seconds(job.loop.interval_seconds);
  if (job.tensor_names != nullptr) {
    req.mutable_tensor_names()->Reserve(
        static_cast<int>(job.tensor_names->size()));
    for (const std::string& n : *job.tensor_names) req.add_tensor_names(n);
  }
  for (auto& r : job.ranks) {
    auto* ra = req.add_ranks();
    ra->set_rank(r.rank);
    for (auto& f : r.files) {
      auto* fa = ra->add_files();
      fa->set_name(f.path);
      fa->set_index(f.index);
      fa->set_size(f.size);
      // The bytes are the writer's: a shifted load's file is another rank's.
      if (f.rank != r.rank) {
        fa->set_other_rank(true);
        fa->set_written_by_rank(f.rank);
      }
      fa->set_ranges(f.ranges);
      fa->mutable_segments()->Reserve(static_cast<int>(f.segments.size()));
      for (const SegmentJob& s : f.segments) {
        auto* sa = fa->add_segments();
        sa->set_tensor_index(s.tensor);
        sa->set_tensor_offset(s.tensor_offset);
        sa->set_length(s.length);
        sa->set_file_offset(s.file_offset);
        if (s.has_expected) {
          sa->set_checksum(s.expected);
          sa->set_has_checksum(true);
        }
        sa->set_keep_offset(s.keep_offset);
        sa->set_keep_length(s.keep_length);
      }
      if constexpr (kConsume) std::vector<SegmentJob>().swap(f.segments);
    }
  }
  return req;
}

// The interval sizes an async save's training compute: checked as the key
// it came from (a duration >= 0, at most 10 years; never NaN).
absl::Status CheckTrainingInterval(double seconds) {
  Config c;
  CheckpointOf(c).interval = seconds;
  return RecheckKeys(c, "run.interval");
}

// Builds the job from a request; with a mutable one (Req non-const) it
// consumes it: tensor names are moved and each file's segments freed as
// soon as they are converted, so the request and the job never both hold
// a 100,000-tensor plan.
template <typename Req>
absl::StatusOr<PhaseJob> BuildJob(Req& req) {
  constexpr bool kConsume = !std::is_const_v<Req>;
  PhaseJob job;
  job.run_id = req.run_id();
  job.round_id = req.round_id();
  if (!req.workload().empty()) {
    job.workload = req.workload();
    job.workload_job = req.workload_job();
    return job;
  }
  ASSIGN_OR_RETURN(const Phase phase, FromWire(req.phase(), "phase"));
  ASSIGN_OR_RETURN(job.io, IoFromWire(req.io()));
  ASSIGN_OR_RETURN(job.backend, FromWire(req.backend()));
  ASSIGN_OR_RETURN(job.loop.accelerator,
                   FromWire(req.loop().accelerator(), "cluster.accelerator"));
  ASSIGN_OR_RETURN(job.loop.staging,
                   FromWire(req.loop().staging(), "cluster.staging"));
  job.save = phase == Phase::kSave;
  job.seed = req.seed();
  job.step = req.step();
  job.step_uri = req.step_uri();
  job.loop.async = req.loop().async();
  job.loop.interval_seconds = req.loop().interval_seconds();
  RETURN_IF_ERROR(CheckTrainingInterval(job.loop.interval_seconds));
  auto names = std::make_shared<std::vector<std::string>>();
  names->reserve(static_cast<size_t>(req.tensor_names_size()));
  if constexpr (kConsume) {
    for (auto& n : *req.mutable_tensor_names()) names->push_back(std::move(n));
    google::protobuf::RepeatedPtrField<std::string>().Swap(
        req.mutable_tensor_names());
  } else {
    names->assign(req.tensor_names().begin(), req.tensor_names().end());
  }
  job.tensor_names = names;
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

v1::PrepareRequest ToWire(PhaseJob&& job) { return BuildRequest(job); }
v1::PrepareRequest ToWire(const PhaseJob& job) { return BuildRequest(job); }

absl::StatusOr<PhaseJob> FromWire(const v1::PrepareRequest& req) {
  return BuildJob(req);
}
absl::StatusOr<PhaseJob> FromWire(v1::PrepareRequest&& req) {
  return BuildJob(req);
}

}  // namespace ckpt
