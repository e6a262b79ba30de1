// Page-cache control for files on a local or FUSE filesystem: dropping the
// host's caches (root only), per-file fadvise(DONTNEED), and measuring how
// much of a file is resident (mincore). Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_PAGE_CACHE_H_
#define CKPTBENCH_NODE_STORAGE_PAGE_CACHE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ckpt {

// True when this process may write /proc/sys/vm/drop_caches.
bool CanDropCaches();
// sync() then drop clean page cache, dentries and inodes host-wide.
absl::Status DropCaches();
// Flushes the file's dirty pages, then asks the kernel to drop its cache.
absl::Status FadviseDontNeed(const std::string& path);
// Bytes of the file currently in the page cache.
absl::StatusOr<uint64_t> ResidentBytes(const std::string& path);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_PAGE_CACHE_H_
