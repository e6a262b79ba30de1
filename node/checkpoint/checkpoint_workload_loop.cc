// The checkpoint workload's training-loop side: where a phase's shard bytes
// live (ACCELERATOR=gpu: device memory; an async save: host training state) and
// the staging an async save needs. The rest of Prepare is in
// checkpoint_workload.cc.
#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/cuda.h"
#include "common/status_macros.h"
#include "node/checkpoint/checkpoint_workload.h"
#include "node/checkpoint/file_ranges.h"
#include "node/pattern.h"

namespace ckpt {

absl::Status CheckpointWorkload::PrepareLoop(const PhaseJob& job) {
  memory_.clear();
  staged_.clear();
  compute_.reset();
  const TrainingLoopOptions& loop = job.loop;
  const bool gpu = loop.accelerator == Accelerator::kGpu;
  const bool async_save = job.save && loop.async;
  if (!gpu && !async_save) return absl::OkStatus();
  int gpus = 1;
  if (gpu) {
    auto n = cuda::DeviceCount();
    if (!n.ok()) {
      return absl::Status(
          n.status().code(),
          absl::StrCat("cluster.accelerator (ACCELERATOR) = 'gpu': ",
                       n.status().message()));
    }
    gpus = *n;
  }
  const bool pinned = gpu && loop.staging == HostStaging::kPinned;
  // A save's bytes are in place before the round (untimed): generated on
  // the host a block at a time, copied where they live.
  std::unique_ptr<AlignedBuffer> bounce;
  if (job.save) {
    ASSIGN_OR_RETURN(bounce, AlignedBuffer::Create(job.io.block_size, pinned));
  }
  for (size_t ri = 0; ri < job.ranks.size(); ++ri) {
    const int device = static_cast<int>(ri) % gpus;  // ranks bound in turn
    for (const auto& f : job.ranks[ri].files) {
      // A resharded load holds only the bytes its rank keeps of the file.
      const uint64_t bytes = KeptBytes(f);
      auto mem = ShardMemory::Create(loop.accelerator, device, bytes);
      if (!mem.ok()) {
        return absl::Status(
            mem.status().code(),
            absl::StrCat("rank ", f.rank, " file ", f.index, " (",
                         FormatBytes(bytes), gpu ? ") on GPU " : ")",
                         gpu ? absl::StrCat(device) : std::string(), ": ",
                         mem.status().message()));
      }
      if (job.save) {
        const uint64_t key =
            PatternStreamKey({job.seed, job.step, f.rank, f.index});
        for (uint64_t off = 0; off < f.size;) {
          const size_t n = static_cast<size_t>(
              std::min<uint64_t>(bounce->size(), f.size - off));
          FillPattern(key, off, bounce->data(), n);
          RETURN_IF_ERROR((*mem)->CopyIn(off, bounce->data(), n));
          off += n;
        }
      }
      memory_.push_back(*std::move(mem));
      if (async_save) {
        ASSIGN_OR_RETURN(auto staged, AlignedBuffer::Create(f.size, pinned));
        staged_.push_back(std::move(staged));
      }
    }
  }
  if (async_save) {
    compute_ = TrainingCompute::Calibrate(loop.interval_seconds,
                                          static_cast<int>(job.ranks.size()));
  }
  return absl::OkStatus();
}

}  // namespace ckpt

namespace ckpt {

absl::Status FillSaveState(const PhaseJob& job, SaveState* state) {
  if (!(job.save && job.loop.async)) {
    state->memory.clear();
    state->staged.clear();
    return absl::OkStatus();
  }
  std::vector<const FileJob*> files;
  for (const auto& r : job.ranks) {
    for (const auto& f : r.files) files.push_back(&f);
  }
  const bool same = state->memory.size() == files.size() &&
                    state->staged.size() == files.size();
  if (!same) {
    state->memory.clear();
    state->staged.clear();
  }
  ASSIGN_OR_RETURN(auto bounce,
                   AlignedBuffer::Create(job.io.block_size, false));
  for (size_t i = 0; i < files.size(); ++i) {
    const FileJob& f = *files[i];
    if (same && (state->memory[i]->size() != f.size ||
                 state->staged[i]->size() != f.size)) {
      return absl::InternalError("a save's state changed size between saves");
    }
    if (!same) {
      auto mem = ShardMemory::Create(Accelerator::kCpu, 0, f.size);
      if (!mem.ok()) {
        return absl::Status(
            mem.status().code(),
            absl::StrCat("rank ", f.rank, " file ", f.index, " (",
                         FormatBytes(f.size), "): ", mem.status().message()));
      }
      state->memory.push_back(*std::move(mem));
      ASSIGN_OR_RETURN(auto staged, AlignedBuffer::Create(f.size, false));
      state->staged.push_back(std::move(staged));
    }
    const uint64_t key =
        PatternStreamKey({job.seed, job.step, f.rank, f.index});
    for (uint64_t off = 0; off < f.size;) {
      const size_t n =
          static_cast<size_t>(std::min<uint64_t>(bounce->size(), f.size - off));
      FillPattern(key, off, bounce->data(), n);
      RETURN_IF_ERROR(state->memory[i]->CopyIn(off, bounce->data(), n));
      off += n;
    }
  }
  return absl::OkStatus();
}

}  // namespace ckpt
