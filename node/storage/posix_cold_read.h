// What a cold read takes on a file system path (PosixStorage's
// PrepareColdRead), and the mount a path is on. The cache mode asked
// (io.cache_mode) against what the file system allows: once per file
// system an eviction probe (page_cache.h) says whether fadvise evicts,
// whether it is memory-backed and whether O_DIRECT reads work; then the
// files are evicted (fadvise or drop_caches) or read with O_DIRECT, and
// what stayed resident is measured. A FUSE mount's own caches are out of
// reach: the report's note says so. Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_POSIX_COLD_READ_H_
#define CKPTBENCH_NODE_STORAGE_POSIX_COLD_READ_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/kinds.h"
#include "common/storage_facts.h"
#include "node/storage/page_cache.h"

namespace ckpt {

// The mount holding `path` (the longest mount-point prefix in
// /proc/self/mountinfo): its mount point, type and options.
FilesystemInfo MountOf(const std::string& path);

// Prepares `paths` (files on one file system; `fuse`: a FUSE mount) for a
// cold read in `mode`, probing the file system once through `probes`.
// O_DIRECT is chosen (io.cache_mode=direct, or auto where eviction cannot
// clear the cache) only where `direct` says the reads can use it.
absl::StatusOr<CacheReport> PrepareColdReadOnPosix(
    const std::vector<std::string>& paths, CacheMode mode,
    DirectFallback direct, bool fuse, EvictionProbes& probes);

// After an eviction by `report->method` that left `report->resident_bytes`
// in the page cache: io.cache_mode=auto reads with O_DIRECT where `direct`
// allows; otherwise the note says the load may be served by the cache.
void SettleResidue(CacheMode mode, DirectFallback direct, CacheReport* report);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_POSIX_COLD_READ_H_
