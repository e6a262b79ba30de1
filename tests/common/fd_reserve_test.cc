// The descriptor reserve: held while nothing needs it, given back for a
// clean-up's scope (when every other descriptor is taken, it is what
// makes the clean-up possible) and taken again after.
#include "common/fd_reserve.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <vector>

namespace ckpt {
namespace {

TEST(DescriptorReserve, IsGivenBackForAScopeAndTakenAgainAfter) {
  ReserveDescriptors(4);
  ASSERT_EQ(ReservedDescriptors(), 4);
  rlimit saved{};
  getrlimit(RLIMIT_NOFILE, &saved);
  const int probe = open("/dev/null", O_RDONLY);
  close(probe);
  rlimit low = saved;
  low.rlim_cur = static_cast<rlim_t>(probe + 8);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> held;
  for (int fd; (fd = open("/dev/null", O_RDONLY)) >= 0;) held.push_back(fd);
  int opened = 0;
  {
    DescriptorReserveRelease release;
    EXPECT_EQ(ReservedDescriptors(), 0);
    {
      DescriptorReserveRelease nested;  // nests: nothing more to give
    }
    EXPECT_EQ(ReservedDescriptors(), 0) << "taken again only at the last";
    for (int fd; opened < 8 && (fd = open("/dev/null", O_RDONLY)) >= 0;) {
      held.push_back(fd);
      ++opened;
    }
    for (int i = 0; i < opened; ++i) {
      close(held.back());
      held.pop_back();
    }
  }
  EXPECT_EQ(opened, 4) << "exactly the reserve was free";
  EXPECT_EQ(ReservedDescriptors(), 4);
  for (int fd : held) close(fd);
  setrlimit(RLIMIT_NOFILE, &saved);
}

}  // namespace
}  // namespace ckpt
