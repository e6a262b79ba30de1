#include "node/checkpoint/checkpoint_workload.h"

#include <malloc.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/fd_reserve.h"
#include "common/log.h"
#include "common/names.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "node/checkpoint/checkpoint_phase.h"

namespace ckpt {

absl::Status CheckBufferMemory(const PhaseJob& job, const Storage& storage,
                               const MemoryBudget& budget, bool state_held) {
  const Storage::BufferUse backend = storage.BufferPerFile(job.save);
  uint64_t files = 0, need = 0, held = 0;
  // An async save holds each file's bytes staged in host memory, and on the
  // CPU the training state they are staged from too.
  const uint64_t copies = state_held || !(job.save && job.loop.async) ? 0
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

absl::StatusOr<PrepareOutcome> CheckpointWorkload::Prepare(
    PhaseJob job, StorageSet& storage, const std::atomic<bool>& /*abort*/) {
  // Whole again for this round's clean-up, should the last one have left
  // it short (taken again while descriptors were still scarce).
  ReserveDescriptors(kCleanupDescriptors);
  {
    Config received;  // the coordinator's io.*, through this node's key table
    received.io = job.io;
    RETURN_IF_ERROR(RecheckKeys(received, "io."));
  }
  ASSIGN_OR_RETURN(location_, storage.Open(job.step_uri, job.backend));
  counters_ = &storage.counters();
  Storage& st = *location_.storage;
  job.io.queue_depth = ResolveQueueDepth(job.io, st.Kind(), job.save);
  RETURN_IF_ERROR(
      CheckBufferMemory(job, st, AvailableMemory(), embedded_ != nullptr));
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
    ASSIGN_OR_RETURN(
        out.cache, st.PrepareColdRead(paths, mode, DirectFallback::kAvailable));
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
  if (embedded_ == nullptr) RETURN_IF_ERROR(PrepareLoop(job));
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
  // The checkpoint's ranks, in order: whose bytes its progress counts.
  for (const RankJob& r : job.ranks) ranks_.push_back(r.rank);
  rank_bytes_ = std::vector<std::atomic<uint64_t>>(ranks_.size());
  reserved_.ops.Reserve();
  job_ = std::move(job);
  return out;
}

PhaseOutcome CheckpointWorkload::Run(const NodePhaseContext& ctx) {
  PreparedPhase prepared;
  prepared.job = &job_;
  prepared.location = &location_;
  prepared.read_direct = read_direct_;
  prepared.checksum = job_.io.checksum;
  prepared.buffers = &buffers_;
  prepared.memory = embedded_ ? &embedded_->memory : &memory_;
  prepared.staged = embedded_ ? &embedded_->staged : &staged_;
  prepared.on_staged = on_staged_;
  prepared.compute = compute_ ? &*compute_ : nullptr;
  prepared.counters = counters_;
  prepared.rank_bytes = &rank_bytes_;
  CheckpointPhase phase(prepared, *ctx.abort, *ctx.progress);
  PhaseOutcome out = phase.Run(std::move(reserved_));
  Release();
  return out;
}

void CheckpointWorkload::Embed(SaveState* state,
                               std::function<void()> on_staged) {
  embedded_ = state;
  on_staged_ = std::move(on_staged);
}

std::vector<RankProgress> CheckpointWorkload::Progress() const {
  std::vector<RankProgress> p;
  p.reserve(ranks_.size());
  for (size_t i = 0; i < ranks_.size(); ++i) {
    p.push_back({ranks_[i], rank_bytes_[i].load(std::memory_order_relaxed), 0});
  }
  return p;
}

void CheckpointWorkload::Release() {
  if (released_) return;
  released_ = true;
  // At 100,000 tensors this, with GiveBack's trim and the changes in
  // node_session.cc and node_service.cc, took the node's peak from 126 to
  // 93 MiB.
  size_t segments = 0, buffer_bytes = 0;
  for (const auto& r : job_.ranks) {
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
  // The job whole (its files, segments and tensor names): nothing reads it
  // after the phase.
  job_ = PhaseJob{};
  trim_ = segments >= kTrimSegments || buffer_bytes >= kTrimBytes;
}

void CheckpointWorkload::GiveBack() {
  Release();  // a round prepared but never started
  if (!trim_) return;
  trim_ = false;
  malloc_trim(0);  // glibc: return the freed heap pages to the system
}

}  // namespace ckpt
