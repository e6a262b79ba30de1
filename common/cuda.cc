#include "common/cuda.h"

#include "absl/strings/str_cat.h"

#ifdef CKPT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace ckpt::cuda {

#ifdef CKPT_HAVE_CUDA

namespace {

absl::Status Check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": ", cudaGetErrorName(e), " (",
                                          cudaGetErrorString(e), ")"));
}

}  // namespace

bool Built() { return true; }

absl::StatusOr<int> DeviceCount() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    return absl::FailedPreconditionError(
        absl::StrCat("no usable GPU on this node: cudaGetDeviceCount says ",
                     cudaGetErrorName(e), " (", cudaGetErrorString(e), ")",
                     e == cudaErrorInsufficientDriver
                         ? "; it says that too when no NVIDIA driver is "
                           "installed"
                         : ""));
  }
  if (n == 0) {
    return absl::FailedPreconditionError(
        "no GPU on this node: cudaGetDeviceCount found 0 devices");
  }
  return n;
}

absl::StatusOr<std::string> DeviceName(int device) {
  cudaDeviceProp prop;
  if (auto s = Check(cudaGetDeviceProperties(&prop, device),
                     "cudaGetDeviceProperties");
      !s.ok()) {
    return s;
  }
  return std::string(prop.name);
}

absl::StatusOr<void*> DeviceAlloc(int device, size_t bytes) {
  if (auto s = Check(cudaSetDevice(device), "cudaSetDevice"); !s.ok()) {
    return s;
  }
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cudaMalloc of ", bytes, " bytes on GPU ", device, ": ",
                     cudaGetErrorName(e)));
  }
  return p;
}

void DeviceFree(int device, void* p) {
  if (p == nullptr) return;
  cudaSetDevice(device);
  cudaFree(p);
}

absl::StatusOr<void*> PinnedAlloc(size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
  if (e != cudaSuccess) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cudaHostAlloc of ", bytes, " pinned bytes: ", cudaGetErrorName(e)));
  }
  return p;
}

void PinnedFree(void* p) {
  if (p != nullptr) cudaFreeHost(p);
}

namespace {

absl::Status Copy(int device, void* dst, const void* src, size_t bytes,
                  cudaMemcpyKind kind, const char* what) {
  if (auto s = Check(cudaSetDevice(device), "cudaSetDevice"); !s.ok()) {
    return s;
  }
  if (auto s = Check(
          cudaMemcpyAsync(dst, src, bytes, kind, cudaStreamPerThread), what);
      !s.ok()) {
    return s;
  }
  return Check(cudaStreamSynchronize(cudaStreamPerThread),
               "cudaStreamSynchronize");
}

}  // namespace

absl::Status CopyToHost(int device, void* host, const void* dev, size_t bytes) {
  return Copy(device, host, dev, bytes, cudaMemcpyDeviceToHost,
              "cudaMemcpyAsync device to host");
}

absl::Status CopyToDevice(int device, void* dev, const void* host,
                          size_t bytes) {
  return Copy(device, dev, host, bytes, cudaMemcpyHostToDevice,
              "cudaMemcpyAsync host to device");
}

#else  // no CUDA toolkit at build time

namespace {

absl::Status NotBuilt() {
  return absl::FailedPreconditionError(
      "this build of ckptbench has no GPU support (built without the CUDA "
      "toolkit)");
}

}  // namespace

bool Built() { return false; }
absl::StatusOr<int> DeviceCount() { return NotBuilt(); }
absl::StatusOr<std::string> DeviceName(int) { return NotBuilt(); }
absl::StatusOr<void*> DeviceAlloc(int, size_t) { return NotBuilt(); }
void DeviceFree(int, void*) {}
absl::StatusOr<void*> PinnedAlloc(size_t) { return NotBuilt(); }
void PinnedFree(void*) {}
absl::Status CopyToHost(int, void*, const void*, size_t) { return NotBuilt(); }
absl::Status CopyToDevice(int, void*, const void*, size_t) {
  return NotBuilt();
}

#endif

}  // namespace ckpt::cuda
