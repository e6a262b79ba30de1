#include "node/checkpoint/shard_memory.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/cuda.h"
#include "common/status_macros.h"
#include "node/checkpoint/file_io.h"

namespace ckpt {
namespace {

class HostShardMemory : public ShardMemory {
 public:
  explicit HostShardMemory(std::unique_ptr<AlignedBuffer> buffer)
      : ShardMemory(buffer->size()), buffer_(std::move(buffer)) {}
  bool on_device() const override { return false; }
  absl::Status CopyIn(uint64_t off, const unsigned char* src,
                      size_t n) override {
    RETURN_IF_ERROR(InBounds(off, n));
    std::memcpy(buffer_->data() + off, src, n);
    return absl::OkStatus();
  }
  absl::Status CopyOut(uint64_t off, unsigned char* dst,
                       size_t n) const override {
    RETURN_IF_ERROR(InBounds(off, n));
    std::memcpy(dst, buffer_->data() + off, n);
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<AlignedBuffer> buffer_;
};

class GpuShardMemory : public ShardMemory {
 public:
  GpuShardMemory(int device, void* data, uint64_t size)
      : ShardMemory(size), device_(device), data_(data) {}
  ~GpuShardMemory() override { cuda::DeviceFree(device_, data_); }
  bool on_device() const override { return true; }
  absl::Status CopyIn(uint64_t off, const unsigned char* src,
                      size_t n) override {
    RETURN_IF_ERROR(InBounds(off, n));
    return cuda::CopyToDevice(device_, static_cast<unsigned char*>(data_) + off,
                              src, n);
  }
  absl::Status CopyOut(uint64_t off, unsigned char* dst,
                       size_t n) const override {
    RETURN_IF_ERROR(InBounds(off, n));
    return cuda::CopyToHost(device_, dst,
                            static_cast<const unsigned char*>(data_) + off, n);
  }

 private:
  int device_;
  void* data_;
};

}  // namespace

absl::Status ShardMemory::InBounds(uint64_t off, size_t n) const {
  if (off > size_ || n > size_ - off) {
    return absl::OutOfRangeError(
        absl::StrCat("bytes [", off, ", ", off + n,
                     ") are outside the shard memory of ", size_, " bytes"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> DescribeGpus() {
  auto n = cuda::DeviceCount();
  if (!n.ok()) return n.status();
  auto name = cuda::DeviceName(0);
  if (!name.ok()) return name.status();
  return absl::StrCat(*n, " x ", *name);
}

absl::StatusOr<std::unique_ptr<ShardMemory>> ShardMemory::Create(
    Accelerator accelerator, int device, uint64_t size) {
  if (accelerator == Accelerator::kGpu) {
    auto p = cuda::DeviceAlloc(device, size);
    if (!p.ok()) return p.status();
    return std::unique_ptr<ShardMemory>(new GpuShardMemory(device, *p, size));
  }
  auto buffer = AlignedBuffer::Create(size, /*pinned=*/false);
  if (!buffer.ok()) return buffer.status();
  return std::unique_ptr<ShardMemory>(new HostShardMemory(*std::move(buffer)));
}

}  // namespace ckpt
