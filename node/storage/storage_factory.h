// Chooses the Storage backend for a location by its URI scheme, the only
// place that does: plain paths and file:// -> posix, mem:// -> memory,
// null:// -> null (discards writes; overhead benchmarks), s3:// -> S3 and
// gs:// -> GCS (shared per scheme and option set, below).
#ifndef CKPTBENCH_NODE_STORAGE_STORAGE_FACTORY_H_
#define CKPTBENCH_NODE_STORAGE_STORAGE_FACTORY_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "node/storage/storage.h"

namespace ckpt {

struct StorageLocation {
  // Object-store backends are shared: one per scheme and option set for
  // the process's life (their connection pools stay warm between rounds).
  std::shared_ptr<Storage> storage;
  std::string path;  // the location in the backend's namespace
};

// `options` are the backend settings shipped by the coordinator (s3.*).
absl::StatusOr<StorageLocation> OpenStorage(
    const std::string& uri,
    const std::map<std::string, std::string>& options = {});

// The path part of `uri` as the backend addresses it ("file:///a" -> "/a").
std::string NativePath(const std::string& uri);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_STORAGE_FACTORY_H_
