#include "common/memory.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ckpt {
namespace {

// The first number in `path` (a cgroup file), 0 for "max" or none.
uint64_t ReadNumber(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word)) return 0;
  try {
    return word == "max" ? 0 : std::stoull(word);
  } catch (...) {
    return 0;
  }
}

// `key`'s value in a memory.stat file ("key value" lines), 0 if absent.
uint64_t StatField(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string k;
  uint64_t v = 0;
  while (in >> k >> v) {
    if (k == key) return v;
  }
  return 0;
}

}  // namespace

MemoryBudget AvailableMemory() {
  MemoryBudget b;
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    uint64_t kib = 0;
    if (fields >> kib) {
      b.available_bytes = kib * 1024;
      b.source = "MemAvailable";
    }
  }
  struct Limit {
    const char* limit;
    const char* usage;
    const char* name;
    const char* inactive_key;  // in memory.stat
  };
  for (const Limit& l :
       {Limit{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current",
              "cgroup memory.max", "inactive_file"},
        Limit{"/sys/fs/cgroup/memory/memory.limit_in_bytes",
              "/sys/fs/cgroup/memory/memory.usage_in_bytes",
              "cgroup memory.limit_in_bytes", "total_inactive_file"}}) {
    const uint64_t limit = ReadNumber(l.limit);
    // v1 reports "no limit" as a huge number.
    if (limit == 0 || limit >= (uint64_t{1} << 60)) continue;
    uint64_t used = ReadNumber(l.usage);
    // The usage counts page cache the kernel reclaims at need (as the
    // kubelet does, take the inactive file pages off).
    const std::string dir =
        std::string(l.limit).substr(0, std::string(l.limit).rfind('/'));
    const uint64_t inactive = StatField(dir + "/memory.stat", l.inactive_key);
    used = used > inactive ? used - inactive : 0;
    const uint64_t left = limit > used ? limit - used : 0;
    if (b.available_bytes == 0 || left < b.available_bytes) {
      b.available_bytes = left;
      b.source = l.name;
    }
    break;
  }
  return b;
}

uint64_t PeakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    uint64_t kib = 0;
    return fields >> kib ? kib * 1024 : 0;
  }
  return 0;
}

bool ResetPeakRss() {
  const int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, "5", 1) == 1;
  close(fd);
  return ok;
}

void MapLargeAllocationsApart() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr &&
      std::strstr(tunables, "glibc.malloc.mmap_threshold") != nullptr) {
    return;
  }
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kLargeAllocationBytes));
}

}  // namespace ckpt
