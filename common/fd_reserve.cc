#include "common/fd_reserve.h"

#include <fcntl.h>
#include <unistd.h>

#include <mutex>
#include <vector>

namespace ckpt {
namespace {

struct Reserve {
  std::mutex mu;
  std::vector<int> fds;
  int wanted = 0;
  int released = 0;  // DescriptorReserveRelease scopes alive
};

Reserve& TheReserve() {
  static Reserve* r = new Reserve;
  return *r;
}

// Opens descriptors until `r` holds r.wanted or open fails; mu held.
void FillLocked(Reserve& r) {
  while (static_cast<int>(r.fds.size()) < r.wanted) {
    const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    r.fds.push_back(fd);
  }
}

}  // namespace

void ReserveDescriptors(int count) {
  Reserve& r = TheReserve();
  std::lock_guard<std::mutex> lock(r.mu);
  if (count > r.wanted) r.wanted = count;
  if (r.released == 0) FillLocked(r);
}

int ReservedDescriptors() {
  Reserve& r = TheReserve();
  std::lock_guard<std::mutex> lock(r.mu);
  return static_cast<int>(r.fds.size());
}

DescriptorReserveRelease::DescriptorReserveRelease() {
  Reserve& r = TheReserve();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.released++ > 0) return;
  for (int fd : r.fds) close(fd);
  r.fds.clear();
}

DescriptorReserveRelease::~DescriptorReserveRelease() {
  Reserve& r = TheReserve();
  std::lock_guard<std::mutex> lock(r.mu);
  if (--r.released == 0) FillLocked(r);
}

}  // namespace ckpt
