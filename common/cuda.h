// The CUDA runtime calls ACCELERATOR=gpu needs, behind plain functions so
// that no other file includes CUDA headers. A build without the toolkit
// (CKPT_HAVE_CUDA undefined) has them too: each returns an error saying
// the build has no GPU support. Copies run on the calling thread's own
// stream (cudaStreamPerThread) and return when done, so threads copying
// for different files overlap. Thread-safe.
#ifndef CKPTBENCH_COMMON_CUDA_H_
#define CKPTBENCH_COMMON_CUDA_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ckpt::cuda {

// Whether this build has GPU support at all.
bool Built();
// GPUs visible to this process; an error names why there are none usable
// (no driver, no device, CUDA_VISIBLE_DEVICES empty).
absl::StatusOr<int> DeviceCount();
absl::StatusOr<std::string> DeviceName(int device);

absl::StatusOr<void*> DeviceAlloc(int device, size_t bytes);
void DeviceFree(int device, void* p);
// Page-locked host memory (cudaHostAlloc): what fast device copies need.
absl::StatusOr<void*> PinnedAlloc(size_t bytes);
void PinnedFree(void* p);

absl::Status CopyToHost(int device, void* host, const void* dev, size_t bytes);
absl::Status CopyToDevice(int device, void* dev, const void* host,
                          size_t bytes);

}  // namespace ckpt::cuda

#endif  // CKPTBENCH_COMMON_CUDA_H_
