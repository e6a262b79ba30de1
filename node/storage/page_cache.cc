#include "node/storage/page_cache.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/status_macros.h"
#include "node/storage/posix_open.h"

namespace ckpt {
namespace {
constexpr char kDropCaches[] = "/proc/sys/vm/drop_caches";

absl::Status CacheError(const std::string& what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}
}  // namespace

bool CanDropCaches() {
  return geteuid() == 0 && access(kDropCaches, W_OK) == 0;
}

absl::Status DropCaches() {
  sync();
  int fd = open(kDropCaches, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return CacheError("open", kDropCaches);
  ssize_t n = write(fd, "3", 1);
  int err = errno;
  close(fd);
  if (n != 1) {
    errno = err;
    return CacheError("write", kDropCaches);
  }
  return absl::OkStatus();
}

absl::Status FadviseDontNeed(const std::string& path) {
  ASSIGN_OR_RETURN(int fd, OpenBeneath(path, O_RDONLY));
  // Dirty pages cannot be dropped: write them back first.
  fdatasync(fd);
  int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
  if (rc != 0) {
    return absl::InternalError(absl::StrCat("posix_fadvise(DONTNEED) ", path,
                                            ": ", std::strerror(rc)));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ResidentBytes(const std::string& path,
                                       uint64_t* size_out) {
  ASSIGN_OR_RETURN(int fd, OpenBeneath(path, O_RDONLY));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return CacheError("stat", path);
  }
  if (size_out != nullptr) *size_out = static_cast<uint64_t>(st.st_size);
  if (st.st_size == 0) {
    close(fd);
    return 0;
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t size = static_cast<size_t>(st.st_size);
  uint64_t resident = 0;
  // Map in windows so huge files do not need a huge vector.
  const size_t window = 1ull << 30;
  std::vector<unsigned char> vec;
  // Only the file's data extents (SEEK_DATA/SEEK_HOLE): a read of a hole
  // returns zeros without touching storage, so what of it is cached says
  // nothing about a cold read, and an 8 TiB sparse file's walk took
  // minutes. Where the file system cannot say, the whole file is data.
  for (size_t at = 0; at < size;) {
    off_t data = lseek(fd, static_cast<off_t>(at), SEEK_DATA);
    if (data < 0 && errno == ENXIO) break;  // no data past `at`
    off_t hole =
        data < 0 ? static_cast<off_t>(size) : lseek(fd, data, SEEK_HOLE);
    if (data < 0) data = static_cast<off_t>(at);
    if (hole < 0 || static_cast<size_t>(hole) > size) {
      hole = static_cast<off_t>(size);
    }
    const size_t begin = static_cast<size_t>(data) / page * page;
    const size_t end = static_cast<size_t>(hole);
    for (size_t off = begin; off < end; off += window) {
      size_t len = std::min(window, end - off);
      void* m = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd,
                     static_cast<off_t>(off));
      if (m == MAP_FAILED) {
        close(fd);
        return CacheError("mmap", path);
      }
      size_t pages = (len + page - 1) / page;
      vec.assign(pages, 0);
      int rc = mincore(m, len, vec.data());
      munmap(m, len);
      if (rc != 0) {
        close(fd);
        return CacheError("mincore", path);
      }
      for (size_t i = 0; i < pages; ++i) {
        if (vec[i] & 1) resident += std::min(page, len - i * page);
      }
    }
    at = std::max(end, at + 1);
  }
  close(fd);
  return resident;
}

bool MincoreTells(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return false;
  if (geteuid() == 0 || st.st_uid == geteuid()) return true;
  const std::string self = absl::StrCat("/proc/self/fd/", fd);
  return faccessat(AT_FDCWD, self.c_str(), W_OK, AT_EACCESS) == 0;
}

absl::StatusOr<uint64_t> ResidentInMapping(const void* addr, uint64_t length) {
  if (length == 0) return 0;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t at = reinterpret_cast<uintptr_t>(addr);
  const uintptr_t begin = at / page * page;
  const uintptr_t end = at + length;
  const size_t pages = (end - begin + page - 1) / page;
  std::vector<unsigned char> vec(pages, 0);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, vec.data()) != 0) {
    return absl::InternalError(
        absl::StrCat("mincore of a mapping: ", std::strerror(errno)));
  }
  uint64_t resident = 0;
  for (size_t i = 0; i < pages; ++i) {
    if ((vec[i] & 1) == 0) continue;
    // The page's part of [at, end).
    const uintptr_t from = std::max<uintptr_t>(begin + i * page, at);
    const uintptr_t to = std::min<uintptr_t>(begin + (i + 1) * page, end);
    resident += to - from;
  }
  return resident;
}

namespace {

constexpr size_t kProbeBytes = 1 << 20;
constexpr size_t kProbeAlign = 4096;

// Reads the probe file once with O_DIRECT; true if that works here.
bool DirectReadWorks(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return false;
  void* buf = nullptr;
  bool ok = false;
  if (posix_memalign(&buf, kProbeAlign, kProbeAlign) == 0) {
    ok = pread(fd, buf, kProbeAlign, 0) == static_cast<ssize_t>(kProbeAlign);
    std::free(buf);
  }
  close(fd);
  return ok;
}

}  // namespace

std::string EvictionProbe::Describe() const {
  if (!error.empty()) {
    return absl::StrCat(fs_type.empty() ? "" : fs_type + ": ",
                        "eviction probe could not run (", error, ")");
  }
  std::string s = fs_type.empty() ? "" : fs_type + ": ";
  if (memory_backed) {
    absl::StrAppend(&s,
                    "memory-backed, every read is served from RAM "
                    "(cold reads are impossible here, O_DIRECT included)");
    return s;
  }
  absl::StrAppend(&s, "fadvise(DONTNEED) left ",
                  FormatBytes(resident_after_fadvise), " of ",
                  FormatBytes(probe_bytes), " resident; O_DIRECT reads ",
                  direct_reads ? "work" : "fail");
  return s;
}

EvictionProbe ProbeEviction(const std::string& dir,
                            const std::string& fs_type) {
  EvictionProbe p;
  p.fs_type = fs_type;
  struct statfs sf;
  if (statfs(dir.c_str(), &sf) != 0) {
    p.error = absl::StrCat("statfs ", dir, ": ", std::strerror(errno));
    return p;
  }
  const auto magic = static_cast<unsigned long>(sf.f_type);
  p.memory_backed = magic == TMPFS_MAGIC || magic == RAMFS_MAGIC;
  // pid alone is not unique: every container's first process is pid 1; 64
  // random bits tell this probe from a concurrent one of the same process.
  std::random_device rd;
  const std::string path =
      absl::StrCat(dir, "/.ckptbench-cache-probe-", getpid(), "-",
                   absl::Hex(rd()), absl::Hex(rd()));
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    p.error = absl::StrCat("create ", path, ": ", std::strerror(errno));
    return p;
  }
  std::vector<char> data(kProbeBytes);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<char>(i * 131 + 7);
  bool wrote = write(fd, data.data(), data.size()) ==
                   static_cast<ssize_t>(data.size()) &&
               fsync(fd) == 0;
  int err = errno;
  close(fd);
  if (!wrote) {
    p.error = absl::StrCat("write ", path, ": ", std::strerror(err));
  } else if (auto s = FadviseDontNeed(path); !s.ok()) {
    p.error = std::string(s.message());
  } else if (auto r = ResidentBytes(path); !r.ok()) {
    p.error = std::string(r.status().message());
  } else {
    p.probe_bytes = kProbeBytes;
    p.resident_after_fadvise = *r;
    p.fadvise_evicts = *r == 0 && !p.memory_backed;
    p.direct_reads = DirectReadWorks(path);
  }
  unlink(path.c_str());
  return p;
}

EvictionProbe EvictionProbes::Once(const std::string& dir,
                                   const std::string& fs_type) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return ProbeEviction(dir, fs_type);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = probes_.find(st.st_dev);
  if (it != probes_.end()) return it->second;
  EvictionProbe p = ProbeEviction(dir, fs_type);
  // A probe that could not run is not remembered: the next may.
  if (p.error.empty()) probes_.emplace(st.st_dev, p);
  return p;
}

}  // namespace ckpt
