// A few file descriptors held back, process-wide, so that clean-up after a
// failure caused by descriptor exhaustion (EMFILE: every socket, file and
// pipe the process may have taken) does not fail for the same cause:
// aborting unfinished uploads, removing a failed step's objects and
// writing result.json each need a descriptor or three. The reserve is
// /dev/null opened N times; a DescriptorReserveRelease gives it back for
// its scope and takes it again after. Thread-safe.
#ifndef CKPTBENCH_COMMON_FD_RESERVE_H_
#define CKPTBENCH_COMMON_FD_RESERVE_H_

namespace ckpt {

// Descriptors a node keeps for its clean-up: a pooled HTTP client needs
// three (its connection and libcurl's wake-up pair), a local file one.
inline constexpr int kCleanupDescriptors = 16;

// Tops the reserve up to `count` descriptors, as far as the process can
// (never an error: a process that cannot reserve simply has none).
void ReserveDescriptors(int count);

// Descriptors held in the reserve now.
int ReservedDescriptors();

// Gives the reserve back (closes it) for its lifetime and takes it again
// when the last one in the process ends. Nests.
class DescriptorReserveRelease {
 public:
  DescriptorReserveRelease();
  ~DescriptorReserveRelease();
  DescriptorReserveRelease(const DescriptorReserveRelease&) = delete;
  DescriptorReserveRelease& operator=(const DescriptorReserveRelease&) = delete;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_FD_RESERVE_H_
