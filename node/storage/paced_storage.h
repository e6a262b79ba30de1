// A storage slowed on purpose to a rate (null://mibps-N: the null backend
// at N MiB/s), for tests of what a slow save or load costs (async
// checkpointing, a client- or storage-bound round). One pacer serves every
// file's reads and writes as one device with one queue would: each
// transfer gets its bytes' share of the rate after the ones before it,
// whichever file or thread they came from; time spent idle is not banked
// (a burst of zero). Everything else passes to the storage it wraps.
// Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_PACED_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_PACED_STORAGE_H_

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "node/storage/forwarding_storage.h"

namespace ckpt {

// Bytes at a rate, one transfer after another, across threads.
class Pacer {
 public:
  explicit Pacer(double bytes_per_second) : rate_(bytes_per_second) {}
  // Blocks until `bytes` have had their turn: from when the transfers
  // before them are done (or now, if that is later), bytes / rate.
  void Take(uint64_t bytes);

 private:
  using Clock = std::chrono::steady_clock;
  const double rate_;
  std::mutex mu_;
  Clock::time_point next_free_;  // guarded by mu_
};

class PacedStorage : public ForwardingStorage {
 public:
  // `bytes_per_second` > 0.
  PacedStorage(std::shared_ptr<Storage> inner, double bytes_per_second);
  // Paced by a pacer shared with other storages (one device for all of
  // them: a test's memory store read through several workers' backends).
  PacedStorage(std::shared_ptr<Storage> inner, std::shared_ptr<Pacer> pacer);

  absl::StatusOr<std::unique_ptr<WritableFile>> OpenWrite(
      const std::string& path, const WriteOptions& options) override;
  absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& options) override;

 private:
  std::shared_ptr<Pacer> pacer_;  // shared with the files it opened
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_PACED_STORAGE_H_
