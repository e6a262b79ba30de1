// What a node's storage says of itself before a round: the file system a
// location is on, and how a load's reads were kept from the page cache.
// The storage backends (node/storage/storage.h) fill them; they cross to
// the coordinator in a node's PrepareOutcome (common/round_messages.h).
#ifndef CKPTBENCH_COMMON_STORAGE_FACTS_H_
#define CKPTBENCH_COMMON_STORAGE_FACTS_H_

#include <cstdint>
#include <string>

#include "common/kinds.h"

namespace ckpt {

// How a load was kept from being served by the page cache.
struct CacheReport {
  CacheMethod method = CacheMethod::kNone;
  uint64_t resident_bytes = 0;  // still cached after eviction (mincore)
  uint64_t checked_bytes = 0;   // bytes of files checked
  std::string note;
  // What probing the file system found before choosing the method (posix).
  std::string probe;
};

// Whether a load's reads can use O_DIRECT where evicting the page cache
// leaves pages resident: a checkpoint load's and serve.read_mode=direct's
// can; a serve stream, mmap or download and a data loader read through the
// page cache, so for them the residue is reported instead.
enum class DirectFallback { kAvailable, kUnavailable };

struct FilesystemInfo {
  std::string type;  // "ext4", "fuse.s3fs", "tmpfs", "memory"
  std::string mount_point;
  std::string options;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_STORAGE_FACTS_H_
