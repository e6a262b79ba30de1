#include "coordinator/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>

#include "absl/strings/str_cat.h"
#include "common/clock.h"

namespace ckpt {

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

std::string UtcNowIso8601() { return FormatUtcNow("%Y-%m-%dT%H:%M:%SZ"); }

EnvironmentInfo ProbeHost() {
  EnvironmentInfo e;
  e.host = HostName();
  utsname u;
  if (uname(&u) == 0)
    e.kernel = absl::StrCat(u.sysname, " ", u.release, " ", u.machine);
  e.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  e.memory_bytes = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                   static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return e;
}

}  // namespace ckpt
