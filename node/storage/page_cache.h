// Page-cache control for files on a local or FUSE filesystem: dropping the
// host's caches (root only), per-file fadvise(DONTNEED), and measuring how
// much of a file is resident (mincore). Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_PAGE_CACHE_H_
#define CKPTBENCH_NODE_STORAGE_PAGE_CACHE_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ckpt {

// True when this process may write /proc/sys/vm/drop_caches.
bool CanDropCaches();
// sync() then drop clean page cache, dentries and inodes host-wide.
absl::Status DropCaches();
// Flushes the file's dirty pages, then asks the kernel to drop its cache.
// Files are opened as reads are (posix_open.h: no FIFO, no special file,
// no link out of their directory).
absl::Status FadviseDontNeed(const std::string& path);
// Bytes of the file's data extents (a hole is no storage to read)
// currently in the page cache; its size into *size.
absl::StatusOr<uint64_t> ResidentBytes(const std::string& path,
                                       uint64_t* size = nullptr);

// Whether mincore tells the truth of the open file `fd`'s pages: since
// Linux 5.0 it says every page of a file is resident unless the process
// owns it, may write it or is privileged (mm/mincore.c can_do_mincore).
bool MincoreTells(int fd);
// Bytes of [addr, addr + length) of a file's mapping in the page cache
// (mincore: a mapping tells without reading).
absl::StatusOr<uint64_t> ResidentInMapping(const void* addr, uint64_t length);

// What a probe of a directory's file system found: a file written there,
// fsync'ed, fadvise(DONTNEED)'ed and checked with mincore, then read once
// with O_DIRECT. Decides how loads from that file system can be cold.
struct EvictionProbe {
  std::string fs_type;          // the caller's name for it: "ext4", "overlay"
  bool memory_backed = false;   // tmpfs/ramfs: every read is served by RAM
  bool fadvise_evicts = false;  // nothing stayed resident after fadvise
  bool direct_reads = false;    // O_DIRECT open + aligned read worked
  uint64_t probe_bytes = 0;
  uint64_t resident_after_fadvise = 0;
  std::string error;  // the probe could not run (e.g. read-only): unknown
  // One line for results: "overlay: fadvise(DONTNEED) left 1 MiB of 1 MiB
  // resident; O_DIRECT reads work".
  std::string Describe() const;
};
// Probes `dir` by writing (and always removing) a small file of its own
// there. Never fails: a probe that could not run says so in `error`.
// `fs_type` names the file system in Describe() (PosixStorage passes the
// mount table's type, as results report it); memory_backed comes from
// statfs.
EvictionProbe ProbeEviction(const std::string& dir,
                            const std::string& fs_type = "");
// The same, once per file system (st_dev) for as long as the object
// lives (a node's run: StorageSet holds one): later probes of a directory
// on the same device return the first one's findings. Thread-safe.
class EvictionProbes {
 public:
  EvictionProbe Once(const std::string& dir, const std::string& fs_type);

 private:
  std::mutex mu_;
  std::map<dev_t, EvictionProbe> probes_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_PAGE_CACHE_H_
