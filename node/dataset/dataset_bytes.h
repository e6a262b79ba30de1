// The bytes of a dataset ckptbench makes (common/dataset/dataset_layout.h),
// made at any offset so a writer streams them in blocks and a reader verifies
// what it got without a stored copy: a sample's bytes are the checkpoint's
// pattern (node/pattern.h) keyed by (seed, sample); a tar
// shard's are its members' headers, data, labels and padding. Pure;
// thread-safe.
#ifndef CKPTBENCH_NODE_DATASET_DATASET_BYTES_H_
#define CKPTBENCH_NODE_DATASET_DATASET_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/dataset/dataset_layout.h"

namespace ckpt {

uint64_t SampleStreamKey(uint64_t seed, uint64_t sample);

// One tar shard: samples [first, end) of `spec`.
class ShardImage {
 public:
  ShardImage(const DatasetSpec& spec, uint64_t first, uint64_t end);

  uint64_t size() const { return starts_.back() + kTarTrailerBytes; }
  uint64_t first() const { return first_; }
  uint64_t end() const { return first_ + starts_.size() - 1; }
  // Where sample `sample` (in [first, end)) lies: its record's first byte
  // (the .jpg header), its data's, and its size.
  struct Place {
    uint64_t record = 0, data = 0, size = 0;
  };
  Place PlaceOf(uint64_t sample) const;

  // buf[0, len) = the shard's bytes [offset, offset + len) (within size()).
  void Fill(uint64_t offset, unsigned char* buf, size_t len) const;
  // The first byte of buf[0, len) that differs from the shard's bytes at
  // `offset`, or len.
  size_t FirstMismatch(uint64_t offset, const unsigned char* buf,
                       size_t len) const;
  // The sample whose record holds byte `offset` (end() for the trailer).
  uint64_t SampleAtByte(uint64_t offset) const;

 private:
  DatasetSpec spec_;
  uint64_t first_;
  std::vector<uint64_t>
      starts_;  // each record's first byte, then the trailer's
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_DATASET_BYTES_H_
