#include "node/checkpoint/checkpoint_phase.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <latch>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "common/config.h"
#include "common/cpu_usage.h"
#include "common/memory.h"
#include "node/checkpoint/file_ranges.h"
#include "node/pattern.h"
#include "node/round/phase_usage.h"
#include "node/storage/io_tally.h"

namespace ckpt {

CheckpointPhase::CheckpointPhase(const PreparedPhase& prepared,
                                 std::atomic<bool>& abort,
                                 ProgressReporter& progress)
    : p_(prepared),
      job_(*prepared.job),
      abort_(abort),
      progress_(progress),
      async_(job_.save && !prepared.staged->empty()),
      rank_bytes_(*prepared.rank_bytes) {}

void CheckpointPhase::MakeSlots() {
  size_t count = 0;
  for (const auto& r : job_.ranks) count += r.files.size();
  slots_ = std::vector<Slot>(count);
  size_t b = 0;
  for (size_t ri = 0; ri < job_.ranks.size(); ++ri) {
    for (const auto& f : job_.ranks[ri].files) {
      Slot& s = slots_[b];
      s.rank_index = ri;
      s.file = &f;
      s.buffer = (*p_.buffers)[b].get();
      s.memory = b < p_.memory->size() ? (*p_.memory)[b].get() : nullptr;
      s.staged = b < p_.staged->size() ? (*p_.staged)[b].get() : nullptr;
      // Its operations' histograms record without allocating: a first
      // operation that allocated them spread the nodes' starts
      // (coordination_bench, 256 agents: 2.9 ms to 8-12 ms).
      s.stats.Reserve();
      ++b;
    }
  }
}

PhaseOutcome CheckpointPhase::Run(PhaseOutcome out) {
  // The slots are made after the start instant, as they always were: made
  // before the sleep, the nodes of coordination_bench started later and
  // less together (start spread at 64 agents 2.2-2.7 ms against 0.7-1.4
  // ms).
  start_ = std::chrono::steady_clock::now();
  MakeSlots();
  const PhaseUsage usage(*p_.counters);

  TransferFiles(&out);
  if (out.status.ok() && job_.save && job_.io.fsync) SyncStepDir(&out);
  if (async_) out.staging.durable_seconds = SecondsSince(start_);
  if (compute_.joinable()) compute_.join();
  SumUpFiles(&out);
  RecordFiles(&out);

  usage.Into(&out);
  return out;  // the report carries the final byte counts
}

void CheckpointPhase::TransferFile(Slot& s, std::latch& gate) {
  ScopedIoTally tally(&s.tally);
  TransferContext ctx{p_.location->storage.get(), start_,
                      &rank_bytes_[s.rank_index], &abort_};
  IoParams p;
  p.block_size = job_.io.block_size;
  p.fsync = job_.io.fsync;
  p.direct = job_.save ? job_.io.direct_write : p_.read_direct;
  p.checksum = p_.checksum;
  p.queue_depth = job_.io.queue_depth;
  p.stream_key =
      PatternStreamKey({job_.seed, job_.step, s.file->rank, s.file->index});
  if (async_) {
    s.status =
        StageFile(*s.memory, *s.staged, job_.io.block_size, abort_, &s.outcome);
    if (!s.status.ok()) abort_ = true;
    gate.arrive_and_wait();
    p.source = s.staged->data();
  } else {
    p.device = s.memory;
  }
  if (s.status.ok()) {
    s.status = job_.save
                   ? SaveFile(ctx, *s.file, p, *s.buffer, &s.stats, &s.outcome)
                   : LoadFile(ctx, *s.file, p, *s.buffer, &s.stats, &s.outcome);
  }
  if (!s.status.ok()) abort_ = true;  // fail fast: stop sibling files
}

void CheckpointPhase::TransferFiles(PhaseOutcome* out) {
  // An async save: every file is staged (training blocked) before any is
  // persisted, as a checkpointer stages all, then writes in the background.
  std::latch gate(static_cast<std::ptrdiff_t>(slots_.size()));
  std::mutex done_mu;
  std::condition_variable done_cv;
  size_t finished = 0;
  std::vector<std::thread> threads;
  threads.reserve(slots_.size());
  for (auto& slot : slots_) {
    threads.emplace_back([&, s = &slot] {
      TransferFile(*s, gate);
      std::lock_guard<std::mutex> lock(done_mu);
      ++finished;
      done_cv.notify_all();
    });
  }
  // Async: training resumes once every file is staged; its next interval
  // of compute runs while the files persist (and the step directory
  // syncs: Run joins it after).
  if (async_) {
    gate.wait();
    out->staging.blocking_seconds = SecondsSince(start_);
    if (p_.on_staged) p_.on_staged();
    if (p_.compute != nullptr) {
      // `out` by value: the thread outlives this call (Run joins it).
      compute_ = std::thread([this, out] {
        out->staging.compute_seconds = p_.compute->Run(&abort_);
      });
      out->staging.compute_baseline_seconds = p_.compute->baseline_seconds();
    }
  }
  {
    std::unique_lock<std::mutex> lock(done_mu);
    progress_.AwaitDone(lock, done_cv,
                        [&] { return finished == slots_.size(); });
  }
  for (auto& t : threads) t.join();
  // The first real error wins over the aborts it caused in siblings.
  for (const auto& s : slots_) {
    if (!s.status.ok() && (out->status.ok() || absl::IsAborted(out->status))) {
      out->status = s.status;
    }
  }
}

void CheckpointPhase::SyncStepDir(PhaseOutcome* out) const {
  auto t0 = std::chrono::steady_clock::now();
  // The step's entries, then the step's own entry in checkpoints/ (a new
  // directory): without the second, a host crash can lose the whole
  // committed step.
  const StorageLocation& loc = *p_.location;
  out->status = loc.storage->SyncDir(loc.path);
  const std::string parent =
      std::filesystem::path(loc.path).parent_path().string();
  if (out->status.ok() && !parent.empty()) {
    out->status = loc.storage->SyncDir(parent);
  }
  out->dir_sync_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
}

void CheckpointPhase::SumUpFiles(PhaseOutcome* out) const {
  for (const auto& s : slots_) {
    out->data_seconds += s.outcome.data_seconds;
    // An async save's files persist from the gate on: their staging and
    // the wait for their siblings' are not the data path's time.
    out->file_seconds +=
        std::max(0.0, s.outcome.done_seconds -
                          (async_ ? out->staging.blocking_seconds : 0.0));
    out->staging.copy_seconds += s.outcome.copy_seconds;
    out->staging.copy_bytes += s.outcome.copy_bytes;
    if (s.staged != nullptr) {
      out->staging.staged_bytes += s.staged->size();
      out->staging.pinned = s.staged->pinned();
    } else if (s.memory != nullptr && s.memory->on_device()) {
      out->staging.staged_bytes += s.buffer->size();
      out->staging.pinned = s.buffer->pinned();
    }
  }
}

void CheckpointPhase::RecordFiles(PhaseOutcome* out) const {
  const size_t n_ranks = job_.ranks.size();
  out->ranks.resize(n_ranks);
  for (size_t ri = 0; ri < n_ranks; ++ri) {
    out->ranks[ri].rank = job_.ranks[ri].rank;
  }
  const bool object_store = IsObjectStoreUri(p_.location->path);
  const auto sec = [](const Histogram& h) {
    return static_cast<double>(h.sum()) / 1e9;
  };
  for (const auto& s : slots_) {
    RankOutcome& r = out->ranks[s.rank_index];
    r.bytes += s.outcome.bytes;
    r.checked_bytes += s.outcome.checked_bytes;
    if (!job_.save && s.outcome.checked_bytes >= NeededBytes(*s.file)) {
      ++r.checked_files;
    }
    if (s.outcome.first_byte_seconds >= 0 &&
        (r.first_byte_seconds < 0 ||
         s.outcome.first_byte_seconds < r.first_byte_seconds)) {
      r.first_byte_seconds = s.outcome.first_byte_seconds;
    }
    r.done_seconds = std::max(r.done_seconds, s.outcome.done_seconds);
    const std::string& path = s.file->path;
    FileRecord t;
    t.rank = job_.ranks[s.rank_index].rank;
    t.file_index = s.file->index;
    t.name = path.substr(path.rfind('/') + 1);
    t.bytes = s.outcome.bytes;
    t.start = s.outcome.start_seconds;
    t.first_byte = s.outcome.first_byte_seconds;
    t.last_byte = s.outcome.last_byte_seconds;
    t.done = s.outcome.done_seconds;
    t.data = s.outcome.data_seconds;
    t.io = sec(s.stats.open) + sec(s.stats.write) + sec(s.stats.read);
    t.sync = sec(s.stats.fsync) + sec(s.stats.close);
    t.requests = object_store ? s.tally.requests.load()
                              : s.stats.read.count() + s.stats.write.count();
    t.retries = s.tally.retries.load();
    out->files.push_back(std::move(t));
    out->ops.Merge(s.stats);
    if (job_.save) {
      for (size_t k = 0; k < s.outcome.checksums.size(); ++k) {
        out->checksums.push_back({s.file->rank, s.file->index,
                                  static_cast<uint32_t>(k),
                                  s.outcome.checksums[k]});
      }
    }
  }
  // Verified: the rank's every planned byte was read and matched a sum (or,
  // resharded, the writer's bytes; O_DIRECT may have checked more).
  for (size_t ri = 0; ri < n_ranks; ++ri) {
    uint64_t planned = 0;
    for (const auto& f : job_.ranks[ri].files) planned += NeededBytes(f);
    out->ranks[ri].verified = !job_.save && out->status.ok() &&
                              out->ranks[ri].checked_bytes >= planned;
  }
}

}  // namespace ckpt
