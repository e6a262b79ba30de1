#include "node/storage/page_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace ckpt {
namespace {
constexpr char kDropCaches[] = "/proc/sys/vm/drop_caches";

absl::Status Errno(const std::string& what, const std::string& path) {
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
  if (fd < 0) return Errno("open", kDropCaches);
  ssize_t n = write(fd, "3", 1);
  int err = errno;
  close(fd);
  if (n != 1) {
    errno = err;
    return Errno("write", kDropCaches);
  }
  return absl::OkStatus();
}

absl::Status FadviseDontNeed(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("open", path);
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

absl::StatusOr<uint64_t> ResidentBytes(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("open", path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return Errno("stat", path);
  }
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
  for (size_t off = 0; off < size; off += window) {
    size_t len = std::min(window, size - off);
    void* m =
        mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(off));
    if (m == MAP_FAILED) {
      close(fd);
      return Errno("mmap", path);
    }
    size_t pages = (len + page - 1) / page;
    vec.assign(pages, 0);
    int rc = mincore(m, len, vec.data());
    munmap(m, len);
    if (rc != 0) {
      close(fd);
      return Errno("mincore", path);
    }
    for (size_t i = 0; i < pages; ++i) {
      if (vec[i] & 1) resident += std::min(page, len - i * page);
    }
  }
  close(fd);
  return resident;
}

}  // namespace ckpt
