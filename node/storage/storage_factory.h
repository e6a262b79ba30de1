// Chooses the Storage backend for a location by its URI scheme, the only
// place that does: plain paths and file:// -> posix, mem:// -> memory,
// null:// -> null (discards writes; overhead benchmarks), s3:// -> S3 and
// gs:// -> GCS (kept by a StorageSet, below).
#ifndef CKPTBENCH_NODE_STORAGE_STORAGE_FACTORY_H_
#define CKPTBENCH_NODE_STORAGE_STORAGE_FACTORY_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "node/storage/http_client.h"
#include "node/storage/memory_storage.h"
#include "node/storage/page_cache.h"
#include "node/storage/storage.h"

namespace ckpt {

struct StorageLocation {
  std::shared_ptr<Storage> storage;
  std::string path;  // the location in the backend's namespace
};

// How a file system location is trusted (posix_storage.h): kDefault, each
// file beneath the directory above its own (a step's: the checkpoints
// directory); kAsGiven, the location itself is the user's choice (a
// dataset.path, a results directory): resolved as given, links and all,
// and below it nothing written, made or removed follows a link, nothing
// read leads out of it.
enum class LocationRoot { kDefault, kAsGiven };

// The backends a node holds for one run (its session with the coordinator,
// or an in-process node's life): object-store backends are kept, one per
// scheme and option set, so their connection pools, credentials and tokens
// live for the run and every round after the first starts on kept-alive
// connections, as a training job's long-lived client does. Their requests,
// retries, throttles and connections go into this set's counters. File
// system, memory and null backends hold nothing and are made anew.
// Thread-safe.
class StorageSet {
 public:
  // mem:// locations are files in `memory` (tests share one between their
  // in-process nodes), or in a store of the set's own when null.
  explicit StorageSet(std::shared_ptr<MemoryStore> memory = nullptr);
  StorageSet(const StorageSet&) = delete;
  StorageSet& operator=(const StorageSet&) = delete;

  // `options` are the backend settings the coordinator's configuration
  // resolved (s3.*, gcs.*, storage.flavour); the node reads none of them
  // from its environment.
  absl::StatusOr<StorageLocation> Open(
      const std::string& uri, const BackendOptions& options = {},
      LocationRoot root = LocationRoot::kDefault);

  const ObjectStoreCounters& counters() const { return *counters_; }
  // Frees the buffers its object-store backends keep for reuse across
  // files (Storage::TrimBuffers): the node calls it after each phase.
  // How many.
  size_t TrimBuffers();
  // The store its mem:// locations live in (a set of a worker's own, made
  // beside this one, shares it).
  const std::shared_ptr<MemoryStore>& memory() const { return memory_; }

 private:
  const std::shared_ptr<ObjectStoreCounters> counters_;
  // What file systems' cold-read probes found, for the run's posix
  // backends (made anew for each location, as they hold nothing else).
  const std::shared_ptr<EvictionProbes> probes_;
  const std::shared_ptr<MemoryStore> memory_;
  std::mutex mu_;
  // Object-store backends kept, by scheme and the options they were made
  // with (a handful per run: a linear search).
  struct Kept {
    bool s3 = false;
    S3Config s3_config;
    GcsConfig gcs_config;
    std::shared_ptr<Storage> storage;
  };
  std::vector<Kept> object_stores_;
};

// A backend of its own for one use (a command that reads a file, a test):
// what a new StorageSet opens.
absl::StatusOr<StorageLocation> OpenStorage(
    const std::string& uri, const BackendOptions& options = {},
    LocationRoot root = LocationRoot::kDefault);

// The path part of `uri` as the backend addresses it ("file:///a" -> "/a").
std::string NativePath(const std::string& uri);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_STORAGE_FACTORY_H_
