#include "node/checkpoint/node_agent.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/clock.h"
#include "common/fd_reserve.h"
#include "common/log.h"
#include "common/memory.h"
#include "common/names.h"
#include "common/plan.h"
#include "common/status_macros.h"
#include "node/checkpoint/checkpoint_phase.h"
#include "node/storage/http_client.h"

namespace ckpt {
absl::Status CheckBufferMemory(const PhaseJob& job, const Storage& storage,
                               const MemoryBudget& budget) {
  const Storage::BufferUse backend = storage.BufferPerFile(job.save);
  uint64_t files = 0, need = 0, held = 0;
  // An async save holds each file's bytes staged in host memory, and on the
  // CPU the training state they are staged from too.
  const uint64_t copies = !(job.save && job.loop.async)               ? 0
                          : job.loop.accelerator == Accelerator::kGpu ? 1
                                                                      : 2;
  for (const auto& r : job.ranks) {
    for (const auto& f : r.files) {
      ++files;
      need += job.io.block_size * BufferBlocks(job.io.queue_depth) +
              std::min<uint64_t>(f.size, backend.bytes);
      held += copies * f.size;
    }
  }
  need += held;
  // A margin for the rest of the process (plan, threads, the page cache
  // the transfer itself needs).
  if (budget.available_bytes == 0 || need <= budget.available_bytes / 10 * 8) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "this ", job.save ? "save" : "load", " needs ", FormatBytes(need),
      " of buffers on this node: ", files, " file(s), each ",
      BufferBlocks(job.io.queue_depth), " block(s) of ",
      FormatBytes(job.io.block_size), " (io.queue_depth ", job.io.queue_depth,
      ", io.block_size)",
      backend.bytes > 0 ? absl::StrCat(" + up to ", FormatBytes(backend.bytes),
                                       " (", backend.keys, ")")
                        : std::string(),
      held > 0 ? absl::StrCat(" + ", FormatBytes(held),
                              " held by run.async (CKPT_ASYNC) staging")
               : std::string(),
      "; more than 80% of the ", FormatBytes(budget.available_bytes),
      " available (", budget.source,
      "). Expected fewer ranks per node (NUM_DEVICES), a smaller "
      "thread_count, io.queue_depth or io.block_size",
      backend.bytes > 0 ? absl::StrCat(", or smaller ", backend.keys)
                        : std::string()));
}

int ResolveQueueDepth(const IoOptions& io, StorageKind storage_kind,
                      bool save) {
  if (io.queue_depth != kQueueDepthAuto) return io.queue_depth;
  const bool direct =
      save ? io.direct_write
           : io.direct_read || io.cache_mode == CacheMode::kDirect;
  // A buffered write or read of a local file is the kernel's copy: CPU
  // work that overlapping with generation only moves between cores (on 2
  // cores it cost 13% more CPU per GiB and 8% of the rate: docs/
  // performance.md). Direct I/O, FUSE uploads and object stores wait
  // without the CPU, and the pipeline fills that wait.
  const bool cpu_bound = !direct && (storage_kind == StorageKind::kPosix ||
                                     storage_kind == StorageKind::kMemory ||
                                     storage_kind == StorageKind::kNull);
  return cpu_bound ? 0 : 2;
}

namespace {

// Each file's name, checked to stay inside the step directory `dir` (the
// coordinator may have read it from a .metadata) and joined to it.
absl::StatusOr<std::vector<std::string>> JoinFilePaths(PhaseJob& job,
                                                       const std::string& dir) {
  std::vector<std::string> paths;
  for (auto& r : job.ranks) {
    for (auto& f : r.files) {
      RETURN_IF_ERROR(CheckEntryName(
          f.path, absl::StrCat("file name for rank ", r.rank, " in ", dir)));
      f.path = JoinPath(dir, f.path);
      paths.push_back(f.path);
    }
  }
  return paths;
}

// A save's step directory, made; one that holds a commit is refused.
absl::Status PrepareStepDir(Storage& st, const std::string& dir) {
  ASSIGN_OR_RETURN(bool exists, st.Exists(JoinPath(dir, kMetadataFile)));
  if (exists) {
    return absl::FailedPreconditionError(
        absl::StrCat(dir,
                     " already holds a committed checkpoint; refusing to "
                     "overwrite it"));
  }
  return st.CreateDirs(dir);
}

// A load's files on a file system are the sizes .metadata gives, checked
// before the page-cache check walks each file's whole size (an 8 TiB
// sparse file planted as a shard kept it busy for over a minute); opening
// a file costs nothing there.
absl::Status CheckFileSizes(Storage& st, const PhaseJob& job) {
  if (st.Kind() != StorageKind::kPosix && st.Kind() != StorageKind::kFuse) {
    return absl::OkStatus();
  }
  for (const auto& r : job.ranks) {
    for (const auto& f : r.files) {
      ASSIGN_OR_RETURN(auto file, st.OpenRead(f.path, ReadOptions{}));
      const uint64_t size = file->Size();
      (void)file->Close();
      if (size != f.size) {
        return absl::DataLossError(
            absl::StrCat(f.path, " is ", size,
                         " bytes; the checkpoint's .metadata says ", f.size));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PrepareOutcome> NodeAgent::Prepare(PhaseJob job) {
  // Whole again for this round's clean-up, should the last one have left
  // it short (taken again while descriptors were still scarce).
  ReserveDescriptors(kCleanupDescriptors);
  std::lock_guard<std::mutex> lock(mu_);
  if (running_) {
    // Execute reads the prepared job unlocked: never replace it under it.
    return absl::FailedPreconditionError(absl::StrCat(
        "round ", job.round_id, " cannot be prepared: round ",
        job_ ? job_->round_id : 0, " is still running on this node"));
  }
  abort_ = false;
  {
    Config received;  // the coordinator's io.*, through this node's key table
    received.io = job.io;
    RETURN_IF_ERROR(RecheckKeys(received, "io."));
  }
  checksum_ = job.io.checksum;
  ASSIGN_OR_RETURN(location_, storage_.Open(job.step_uri, job.backend));
  Storage& st = *location_.storage;
  job.io.queue_depth = ResolveQueueDepth(job.io, st.Kind(), job.save);
  // The buffers held now are given back before the new ones are made.
  MemoryBudget budget = AvailableMemory();
  if (budget.available_bytes > 0) {
    for (const auto& b : buffers_) budget.available_bytes += b->size();
  }
  RETURN_IF_ERROR(CheckBufferMemory(job, st, budget));
  ASSIGN_OR_RETURN(const std::vector<std::string> paths,
                   JoinFilePaths(job, location_.path));
  PrepareOutcome out;
  if (job.save) {
    RETURN_IF_ERROR(PrepareStepDir(st, location_.path));
    read_direct_ = false;
  } else {
    CacheMode mode = job.io.cache_mode;
    if (job.io.direct_read) mode = CacheMode::kDirect;
    RETURN_IF_ERROR(CheckFileSizes(st, job));
    ASSIGN_OR_RETURN(out.cache, st.PrepareColdRead(paths, mode));
    read_direct_ = out.cache.method == CacheMethod::kODirect;
  }
  out.filesystem = st.Filesystem(location_.path);
  out.storage_kind = st.Kind();
  LOG_DEBUG("node: prepared %s of %s on %s (%s)%s%s",
            job.save ? "save" : "load", location_.path, out.filesystem.type,
            st.Kind(), job.save ? "" : ", page cache: ",
            job.save ? ""
                     : absl::StrCat(std::string(Name(out.cache.method)), " ",
                                    out.cache.probe));
  buffers_.clear();
  RETURN_IF_ERROR(PrepareLoop(job));
  // Pinned when device bytes pass through them (CKPT_STAGING=pinned).
  const bool pinned = job.loop.accelerator == Accelerator::kGpu &&
                      job.loop.staging == HostStaging::kPinned;
  for (const auto& r : job.ranks) {
    for (size_t i = 0; i < r.files.size(); ++i) {
      ASSIGN_OR_RETURN(
          auto buffer,
          AlignedBuffer::Create(
              job.io.block_size * BufferBlocks(job.io.queue_depth), pinned));
      buffers_.push_back(std::move(buffer));
    }
  }
  job_ = std::make_unique<PhaseJob>(std::move(job));
  return out;
}

PhaseOutcome NodeAgent::RunPhase(const std::string& run_id, uint64_t round_id,
                                 int64_t start_at_unix_ns,
                                 const ProgressFn& progress,
                                 double progress_interval) {
  std::shared_future<PhaseOutcome> fut;
  bool mine = false;
  std::promise<PhaseOutcome> promise;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto key = std::make_pair(run_id, round_id);
    auto it = started_.find(key);
    if (it != started_.end()) {
      fut = it->second;  // a retried start: same outcome, no second transfer
    } else {
      fut = promise.get_future().share();
      started_[key] = fut;
      mine = true;
    }
  }
  if (!mine) return fut.get();
  PhaseOutcome out;
  bool prepared = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    prepared = job_ && job_->run_id == run_id && job_->round_id == round_id;
    running_ = prepared;  // Prepare leaves job_ and buffers_ alone meanwhile
  }
  if (!prepared) {
    out.status = absl::FailedPreconditionError(absl::StrCat(
        "round ", round_id, " was started without being prepared"));
  } else {
    out = Execute(start_at_unix_ns, progress, progress_interval);
    std::lock_guard<std::mutex> lock(mu_);
    running_ = false;
    // The phase's block buffers and file list are not needed again (a
    // retried start gets the outcome above; the next round prepares anew):
    // free them now, so they are not held while the commit's .metadata or
    // the next listing passes through this process. At 100,000 tensors
    // this, with TrimHeap and the changes in node_session.cc and
    // node_service.cc, took the node's peak from 126 to 93 MiB.
    size_t segments = 0, buffer_bytes = 0;
    for (const auto& r : job_->ranks) {
      for (const auto& f : r.files) segments += f.segments.size();
    }
    for (const auto& buf : buffers_) buffer_bytes += buf->size();
    for (const auto& buf : staged_) buffer_bytes += buf->size();
    for (const auto& m : memory_) {
      if (!m->on_device()) buffer_bytes += m->size();
    }
    buffers_.clear();
    buffers_.shrink_to_fit();
    staged_.clear();
    memory_.clear();
    compute_.reset();
    job_->ranks.clear();
    job_->ranks.shrink_to_fit();
    trim_pending_ = segments >= kTrimSegments || buffer_bytes >= kTrimBytes;
  }
  promise.set_value(out);
  return out;
}

void NodeAgent::TrimHeap() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!trim_pending_ || running_) return;
    trim_pending_ = false;
  }
  malloc_trim(0);  // glibc: return the freed heap pages to the system
}

PhaseOutcome NodeAgent::Execute(int64_t start_at_unix_ns,
                                const ProgressFn& progress,
                                double progress_interval) {
  PreparedPhase prepared;
  prepared.job = job_.get();
  prepared.location = &location_;
  prepared.read_direct = read_direct_;
  prepared.checksum = checksum_;
  prepared.buffers = &buffers_;
  prepared.memory = &memory_;
  prepared.staged = &staged_;
  prepared.compute = compute_ ? &*compute_ : nullptr;
  prepared.counters = &storage_.counters();
  CheckpointPhase phase(prepared, abort_);
  return phase.Run(start_at_unix_ns, progress, progress_interval);
}

void NodeAgent::Abort(const std::string& reason) {
  LOG_WARN("node: aborting: %s", reason);
  abort_ = true;
}

}  // namespace ckpt
