#include "common/memory.h"

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
  };
  for (const Limit& l :
       {Limit{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current",
              "cgroup memory.max"},
        Limit{"/sys/fs/cgroup/memory/memory.limit_in_bytes",
              "/sys/fs/cgroup/memory/memory.usage_in_bytes",
              "cgroup memory.limit_in_bytes"}}) {
    const uint64_t limit = ReadNumber(l.limit);
    // v1 reports "no limit" as a huge number.
    if (limit == 0 || limit >= (uint64_t{1} << 60)) continue;
    const uint64_t used = ReadNumber(l.usage);
    const uint64_t left = limit > used ? limit - used : 0;
    if (b.available_bytes == 0 || left < b.available_bytes) {
      b.available_bytes = left;
      b.source = l.name;
    }
    break;
  }
  return b;
}

}  // namespace ckpt
