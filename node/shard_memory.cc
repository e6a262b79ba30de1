#include "node/shard_memory.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/cuda.h"

namespace ckpt {
namespace {

class HostShardMemory : public ShardMemory {
 public:
  HostShardMemory(unsigned char* data, uint64_t size)
      : ShardMemory(size), data_(data) {}
  ~HostShardMemory() override { std::free(data_); }
  bool on_device() const override { return false; }
  absl::Status CopyIn(uint64_t off, const unsigned char* src,
                      size_t n) override {
    std::memcpy(data_ + off, src, n);
    return absl::OkStatus();
  }
  absl::Status CopyOut(uint64_t off, unsigned char* dst,
                       size_t n) const override {
    std::memcpy(dst, data_ + off, n);
    return absl::OkStatus();
  }

 private:
  unsigned char* data_;
};

class GpuShardMemory : public ShardMemory {
 public:
  GpuShardMemory(int device, void* data, uint64_t size)
      : ShardMemory(size), device_(device), data_(data) {}
  ~GpuShardMemory() override { cuda::DeviceFree(device_, data_); }
  bool on_device() const override { return true; }
  absl::Status CopyIn(uint64_t off, const unsigned char* src,
                      size_t n) override {
    return cuda::CopyToDevice(device_, static_cast<unsigned char*>(data_) + off,
                              src, n);
  }
  absl::Status CopyOut(uint64_t off, unsigned char* dst,
                       size_t n) const override {
    return cuda::CopyToHost(device_, dst,
                            static_cast<const unsigned char*>(data_) + off, n);
  }

 private:
  int device_;
  void* data_;
};

unsigned char* AlignedAlloc(uint64_t size) {
  void* p = nullptr;
  const uint64_t rounded = (size + 4095) / 4096 * 4096;
  if (posix_memalign(&p, 4096, rounded == 0 ? 4096 : rounded) != 0) {
    return nullptr;
  }
  return static_cast<unsigned char*>(p);
}

}  // namespace

absl::StatusOr<std::string> DescribeGpus() {
  auto n = cuda::DeviceCount();
  if (!n.ok()) return n.status();
  auto name = cuda::DeviceName(0);
  if (!name.ok()) return name.status();
  return absl::StrCat(*n, " x ", *name);
}

absl::StatusOr<std::unique_ptr<ShardMemory>> ShardMemory::Create(
    const std::string& accelerator, int device, uint64_t size) {
  if (accelerator == "gpu") {
    auto p = cuda::DeviceAlloc(device, size);
    if (!p.ok()) return p.status();
    return std::unique_ptr<ShardMemory>(new GpuShardMemory(device, *p, size));
  }
  unsigned char* p = AlignedAlloc(size);
  if (p == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", size, " bytes of training state"));
  }
  std::memset(p, 0, size);
  return std::unique_ptr<ShardMemory>(new HostShardMemory(p, size));
}

}  // namespace ckpt
