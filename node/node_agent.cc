#include "node/node_agent.h"

#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <latch>
#include <thread>

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
#include "node/file_ranges.h"
#include "node/pattern.h"
#include "node/round/phase_start.h"
#include "node/storage/http_client.h"
#include "node/storage/io_tally.h"

namespace ckpt {
absl::Status CheckBufferMemory(const PhaseJob& job, const Storage& storage,
                               const MemoryBudget& budget) {
  const Storage::BufferUse backend = storage.BufferPerFile(job.save);
  uint64_t files = 0, need = 0, held = 0;
  // An async save holds each file's bytes staged in host memory, and on the
  // CPU the training state they are staged from too.
  const uint64_t copies = !(job.save && job.loop.async)   ? 0
                          : job.loop.accelerator == "gpu" ? 1
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

int ResolveQueueDepth(const IoOptions& io, const std::string& storage_kind,
                      bool save) {
  if (io.queue_depth != kQueueDepthAuto) return io.queue_depth;
  const bool direct =
      save ? io.direct_write : io.direct_read || io.cache_mode == "direct";
  // A buffered write or read of a local file is the kernel's copy: CPU
  // work that overlapping with generation only moves between cores (on 2
  // cores it cost 13% more CPU per GiB and 8% of the rate: docs/
  // performance.md). Direct I/O, FUSE uploads and object stores wait
  // without the CPU, and the pipeline fills that wait.
  const bool cpu_bound =
      !direct && (storage_kind == "posix" || storage_kind == "memory" ||
                  storage_kind == "null");
  return cpu_bound ? 0 : 2;
}

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
  ASSIGN_OR_RETURN(checksum_, ParseChecksumKind(job.io.checksum));
  ASSIGN_OR_RETURN(location_, storage_.Open(job.step_uri, job.storage_options));
  Storage& st = *location_.storage;
  job.io.queue_depth = ResolveQueueDepth(job.io, st.Kind(), job.save);
  // The buffers held now are given back before the new ones are made.
  MemoryBudget budget = AvailableMemory();
  if (budget.available_bytes > 0) {
    for (const auto& b : buffers_) budget.available_bytes += b->size();
  }
  RETURN_IF_ERROR(CheckBufferMemory(job, st, budget));
  std::vector<std::string> paths;
  for (auto& r : job.ranks) {
    for (auto& f : r.files) {
      // Names come from the coordinator, which may have read them from a
      // .metadata: each must stay inside the step directory.
      RETURN_IF_ERROR(CheckEntryName(
          f.path,
          absl::StrCat("file name for rank ", r.rank, " in ", location_.path)));
      f.path = JoinPath(location_.path, f.path);
      paths.push_back(f.path);
    }
  }
  PrepareOutcome out;
  if (job.save) {
    ASSIGN_OR_RETURN(bool exists,
                     st.Exists(JoinPath(location_.path, kMetadataFile)));
    if (exists) {
      return absl::FailedPreconditionError(
          absl::StrCat(location_.path,
                       " already holds a committed checkpoint; refusing to "
                       "overwrite it"));
    }
    RETURN_IF_ERROR(st.CreateDirs(location_.path));
    read_direct_ = false;
  } else {
    std::string mode = job.io.cache_mode;
    if (job.io.direct_read) mode = "direct";
    if (st.Kind() == "posix" || st.Kind() == "fuse") {
      // Sizes first (opening a file costs nothing here): the page-cache
      // check walks a file's whole size, and an 8 TiB sparse file planted
      // as a shard kept it busy for over a minute.
      for (const auto& r : job.ranks) {
        for (const auto& f : r.files) {
          ASSIGN_OR_RETURN(auto file, st.OpenRead(f.path, ReadOptions{}));
          const uint64_t size = file->Size();
          (void)file->Close();
          if (size != f.size) {
            return absl::DataLossError(absl::StrCat(
                f.path, " is ", size,
                " bytes; the checkpoint's .metadata says ", f.size));
          }
        }
      }
    }
    ASSIGN_OR_RETURN(out.cache, st.PrepareColdRead(paths, mode));
    read_direct_ = out.cache.method == "o_direct";
  }
  out.filesystem = st.Filesystem(location_.path);
  out.storage_kind = st.Kind();
  LOG_DEBUG("node: prepared %s of %s on %s (%s)%s%s",
            job.save ? "save" : "load", location_.path, out.filesystem.type,
            out.storage_kind, job.save ? "" : ", page cache: ",
            job.save ? "" : out.cache.method + " " + out.cache.probe);
  buffers_.clear();
  RETURN_IF_ERROR(PrepareLoop(job));
  // Pinned when device bytes pass through them (CKPT_STAGING=pinned).
  const bool pinned =
      job.loop.accelerator == "gpu" && job.loop.staging == "pinned";
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
  PhaseJob& job = *job_;
  PhaseOutcome out;
  const size_t n_ranks = job.ranks.size();
  std::vector<std::atomic<uint64_t>> rank_bytes(n_ranks);
  for (auto& b : rank_bytes) b = 0;

  // Synchronized start (node/round/phase_start.h).
  out.start_lag_seconds = SleepUntilStart(start_at_unix_ns);
  const SteadyTime start = std::chrono::steady_clock::now();
  const CpuSample cpu0 = SampleCpu();
  const ObjectStoreCounters& counters = storage_.counters();
  const uint64_t req0 = counters.requests, retry0 = counters.retries,
                 throttle0 = counters.throttles,
                 conn0 = counters.new_connections,
                 backoff0 = counters.backoff_ns;

  struct Slot {
    size_t rank_index;
    const FileJob* file;
    AlignedBuffer* buffer;
    ShardMemory* memory;    // gpu or async: where the bytes live
    AlignedBuffer* staged;  // async save: the staged copy
    OpStats stats;
    FileOutcome outcome;
    absl::Status status;
  };
  std::vector<Slot> slots;
  size_t b = 0;
  for (size_t ri = 0; ri < n_ranks; ++ri) {
    for (const auto& f : job.ranks[ri].files) {
      slots.push_back({ri,
                       &f,
                       buffers_[b].get(),
                       b < memory_.size() ? memory_[b].get() : nullptr,
                       b < staged_.size() ? staged_[b].get() : nullptr,
                       {},
                       {},
                       {}});
      ++b;
    }
  }
  // An async save: every file is staged (training blocked) before any is
  // persisted, as a checkpointer stages all, then writes in the background.
  const bool async = job.save && !staged_.empty();
  std::latch gate(static_cast<std::ptrdiff_t>(slots.size()));
  // Each file's object-store requests and retries, counted on its thread
  // and on the reader's and uploader's workers (io_tally.h).
  std::vector<IoTally> tallies(slots.size());

  std::mutex done_mu;
  std::condition_variable done_cv;
  size_t finished = 0;
  std::vector<std::thread> threads;
  threads.reserve(slots.size());
  for (auto& slot : slots) {
    threads.emplace_back([&, s = &slot] {
      ScopedIoTally tally(&tallies[static_cast<size_t>(s - slots.data())]);
      TransferContext ctx{location_.storage.get(), start,
                          &rank_bytes[s->rank_index], &abort_};
      IoParams p;
      p.block_size = job.io.block_size;
      p.fsync = job.io.fsync;
      p.direct = job.save ? job.io.direct_write : read_direct_;
      p.checksum = checksum_;
      p.queue_depth = job.io.queue_depth;
      p.stream_key =
          PatternStreamKey({job.seed, job.step, s->file->rank, s->file->index});
      if (async) {
        s->status = StageFile(*s->memory, *s->staged, job.io.block_size, abort_,
                              &s->outcome);
        if (!s->status.ok()) abort_ = true;
        gate.arrive_and_wait();
        p.source = s->staged->data();
      } else {
        p.device = s->memory;
      }
      if (s->status.ok()) {
        s->status = job.save ? SaveFile(ctx, *s->file, p, *s->buffer, &s->stats,
                                        &s->outcome)
                             : LoadFile(ctx, *s->file, p, *s->buffer, &s->stats,
                                        &s->outcome);
      }
      if (!s->status.ok()) abort_ = true;  // fail fast: stop sibling files
      std::lock_guard<std::mutex> lock(done_mu);
      ++finished;
      done_cv.notify_all();
    });
  }
  auto snapshot = [&] {
    std::vector<uint64_t> v(n_ranks);
    for (size_t i = 0; i < n_ranks; ++i) v[i] = rank_bytes[i].load();
    return v;
  };
  // Async: training resumes once every file is staged; its next interval
  // of compute runs while the files persist.
  std::thread compute;
  if (async) {
    gate.wait();
    out.staging.blocking_seconds = SecondsSince(start);
    if (compute_) {
      compute = std::thread(
          [&] { out.staging.compute_seconds = compute_->Run(&abort_); });
      out.staging.compute_baseline_seconds = compute_->baseline_seconds();
    }
  }
  {
    std::unique_lock<std::mutex> lock(done_mu);
    auto interval = std::chrono::duration<double>(progress_interval);
    while (finished < slots.size()) {
      if (done_cv.wait_for(lock, interval,
                           [&] { return finished == slots.size(); }))
        break;
      if (progress) {
        lock.unlock();
        progress(snapshot());
        lock.lock();
      }
    }
  }
  for (auto& t : threads) t.join();

  // The first real error wins over the aborts it caused in siblings.
  for (const auto& s : slots) {
    if (!s.status.ok() && (out.status.ok() || absl::IsAborted(out.status))) {
      out.status = s.status;
    }
  }
  if (out.status.ok() && job.save && job.io.fsync) {
    auto t0 = std::chrono::steady_clock::now();
    // The step's entries, then the step's own entry in checkpoints/ (a new
    // directory): without the second, a host crash can lose the whole
    // committed step.
    out.status = location_.storage->SyncDir(location_.path);
    const std::string parent =
        std::filesystem::path(location_.path).parent_path().string();
    if (out.status.ok() && !parent.empty()) {
      out.status = location_.storage->SyncDir(parent);
    }
    out.dir_sync_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
  }
  if (async) out.staging.durable_seconds = SecondsSince(start);
  if (compute.joinable()) compute.join();
  for (const auto& s : slots) {
    out.data_seconds += s.outcome.data_seconds;
    // An async save's files persist from the gate on: their staging and
    // the wait for their siblings' are not the data path's time.
    out.file_seconds +=
        std::max(0.0, s.outcome.done_seconds -
                          (async ? out.staging.blocking_seconds : 0.0));
    out.staging.copy_seconds += s.outcome.copy_seconds;
    out.staging.copy_bytes += s.outcome.copy_bytes;
    if (s.staged != nullptr) {
      out.staging.staged_bytes += s.staged->size();
      out.staging.pinned = s.staged->pinned();
    } else if (s.memory != nullptr && s.memory->on_device()) {
      out.staging.staged_bytes += s.buffer->size();
      out.staging.pinned = s.buffer->pinned();
    }
  }

  out.ranks.resize(n_ranks);
  for (size_t ri = 0; ri < n_ranks; ++ri) {
    out.ranks[ri].rank = job.ranks[ri].rank;
  }
  const bool object_store = IsObjectStoreUri(location_.path);
  for (auto& s : slots) {
    RankOutcome& r = out.ranks[s.rank_index];
    const IoTally& tally = tallies[static_cast<size_t>(&s - slots.data())];
    r.bytes += s.outcome.bytes;
    r.checked_bytes += s.outcome.checked_bytes;
    if (!job.save && s.outcome.checked_bytes >= NeededBytes(*s.file)) {
      ++r.checked_files;
    }
    if (s.outcome.first_byte_seconds >= 0 &&
        (r.first_byte_seconds < 0 ||
         s.outcome.first_byte_seconds < r.first_byte_seconds)) {
      r.first_byte_seconds = s.outcome.first_byte_seconds;
    }
    r.done_seconds = std::max(r.done_seconds, s.outcome.done_seconds);
    const auto sec = [](const Histogram& h) {
      return static_cast<double>(h.sum()) / 1e9;
    };
    const std::string& path = s.file->path;
    out.files.push_back(
        {job.ranks[s.rank_index].rank, s.file->index,
         path.substr(path.rfind('/') + 1), s.outcome.bytes,
         s.outcome.start_seconds, s.outcome.first_byte_seconds,
         s.outcome.last_byte_seconds, s.outcome.done_seconds,
         s.outcome.data_seconds,
         sec(s.stats.open) + sec(s.stats.write) + sec(s.stats.read),
         sec(s.stats.fsync) + sec(s.stats.close),
         object_store ? tally.requests.load()
                      : s.stats.read.count() + s.stats.write.count(),
         tally.retries.load()});
    out.ops.Merge(s.stats);
    if (job.save) {
      for (size_t k = 0; k < s.outcome.checksums.size(); ++k) {
        out.checksums.push_back({s.file->rank, s.file->index,
                                 static_cast<uint32_t>(k),
                                 s.outcome.checksums[k]});
      }
    }
  }
  // Verified: the rank's every planned byte was read and matched a sum (or,
  // resharded, the writer's bytes; O_DIRECT may have checked more).
  for (size_t ri = 0; ri < n_ranks; ++ri) {
    uint64_t planned = 0;
    for (const auto& f : job.ranks[ri].files) planned += NeededBytes(f);
    out.ranks[ri].verified =
        !job.save && out.status.ok() && out.ranks[ri].checked_bytes >= planned;
  }
  out.cpu = CpuBetween(cpu0, SampleCpu());
  out.cpus = UsableCpus();
  out.memory_available_bytes = AvailableMemory().available_bytes;
  out.requests = counters.requests - req0;
  out.retries = counters.retries - retry0;
  out.throttles = counters.throttles - throttle0;
  out.new_connections = counters.new_connections - conn0;
  out.backoff_seconds =
      static_cast<double>(counters.backoff_ns - backoff0) / 1e9;
  return out;  // the report carries the final byte counts
}

void NodeAgent::Abort(const std::string& reason) {
  LOG_WARN("node: aborting: %s", reason);
  abort_ = true;
}

}  // namespace ckpt
