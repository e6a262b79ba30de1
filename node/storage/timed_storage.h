// Operation timing as a decorator over Storage: the latency of every open,
// write, read, fsync and close a file task makes goes into that task's
// histograms (OpStats), where the node's report takes them from. The
// transfer loops (node/checkpoint/save_stream.h, load_stream.h) open their
// files through a TimedStorage and time nothing themselves.
#ifndef CKPTBENCH_NODE_STORAGE_TIMED_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_TIMED_STORAGE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "common/histogram.h"
#include "common/op_stats.h"
#include "node/storage/forwarding_storage.h"

namespace ckpt {

// Times one call into `h`.
template <typename F>
auto TimeInto(Histogram& h, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  auto result = f();
  h.Record(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now() - t0)
          .count()));
  return result;
}

// `inner` seen by one file task: OpenWrite and OpenRead are timed into
// `stats->open`; on the files they open, Append into write, Sync into
// fsync, a written file's Close into close, Read into read (a read file's
// Close is not timed: it releases, nothing more). Every other call passes
// through untimed. `stats` belongs to the task's thread and outlives its files;
// reads of a file that takes concurrent reads (ConcurrentReads) record
// under the file's own lock. Failed calls are timed too: a timeout's wait
// is part of what the storage cost.
class TimedStorage : public ForwardingStorage {
 public:
  TimedStorage(Storage& inner, OpStats* stats)
      : ForwardingStorage(inner), stats_(stats) {}

  absl::StatusOr<std::unique_ptr<WritableFile>> OpenWrite(
      const std::string& path, const WriteOptions& options) override;
  absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& options) override;

 private:
  OpStats* const stats_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_TIMED_STORAGE_H_
