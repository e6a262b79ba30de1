#include "node/dataset/dataset_bytes.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "node/dataset/tar_header.h"
#include "node/pattern.h"

namespace ckpt {
namespace {

// A step no checkpoint uses, so a sample's stream never equals a shard's.
constexpr uint64_t kDatasetStep = 0xda7a5e7000000000ull;

uint64_t Padded(uint64_t n) {
  return (n + kTarBlock - 1) / kTarBlock * kTarBlock;
}

// Copies the part of `src` (which lies at [at, at + src_len) of the shard)
// that overlaps [offset, offset + len) into buf.
void CopyOverlap(uint64_t at, const unsigned char* src, uint64_t src_len,
                 uint64_t offset, unsigned char* buf, size_t len) {
  uint64_t from = std::max(at, offset);
  uint64_t to = std::min(at + src_len, offset + len);
  if (from >= to) return;
  std::memcpy(buf + (from - offset), src + (from - at), to - from);
}

}  // namespace

uint64_t SampleStreamKey(uint64_t seed, uint64_t sample) {
  return PatternStreamKey({seed, kDatasetStep,
                           static_cast<uint32_t>(sample & 0xffffffffu),
                           static_cast<uint32_t>(sample >> 32)});
}

ShardImage::ShardImage(const DatasetSpec& spec, uint64_t first, uint64_t end)
    : spec_(spec), first_(first) {
  starts_.reserve(end - first + 1);
  uint64_t at = 0;
  for (uint64_t s = first; s < end; ++s) {
    starts_.push_back(at);
    at += TarRecordBytes(SampleSize(spec, s));
  }
  starts_.push_back(at);
}

ShardImage::Place ShardImage::PlaceOf(uint64_t sample) const {
  uint64_t record = starts_[sample - first_];
  return {record, record + kTarBlock, SampleSize(spec_, sample)};
}

uint64_t ShardImage::SampleAtByte(uint64_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return first_ + static_cast<uint64_t>(it - starts_.begin()) - 1;
}

void ShardImage::Fill(uint64_t offset, unsigned char* buf, size_t len) const {
  std::memset(buf, 0, len);  // padding and the trailer
  const uint64_t stop = offset + len;
  for (uint64_t s = SampleAtByte(offset); s < end(); ++s) {
    Place p = PlaceOf(s);
    if (p.record >= stop) break;
    const std::string key = SampleKey(s);
    TarBlock jpg = TarFileHeader(key + ".jpg", p.size);
    CopyOverlap(p.record, jpg.data(), jpg.size(), offset, buf, len);
    uint64_t from = std::max(p.data, offset);
    uint64_t to = std::min(p.data + p.size, stop);
    if (from < to) {
      FillPattern(SampleStreamKey(spec_.seed, s), from - p.data,
                  buf + (from - offset), to - from);
    }
    const uint64_t cls_at = p.data + Padded(p.size);
    const std::string label = LabelText(s);
    TarBlock cls = TarFileHeader(key + ".cls", label.size());
    CopyOverlap(cls_at, cls.data(), cls.size(), offset, buf, len);
    CopyOverlap(cls_at + kTarBlock,
                reinterpret_cast<const unsigned char*>(label.data()),
                label.size(), offset, buf, len);
  }
}

size_t ShardImage::FirstMismatch(uint64_t offset, const unsigned char* buf,
                                 size_t len) const {
  constexpr size_t kPiece = 64 * 1024;
  unsigned char expect[kPiece];
  for (size_t done = 0; done < len;) {
    size_t n = std::min(kPiece, len - done);
    Fill(offset + done, expect, n);
    if (std::memcmp(expect, buf + done, n) != 0) {
      for (size_t i = 0; i < n; ++i) {
        if (expect[i] != buf[done + i]) return done + i;
      }
    }
    done += n;
  }
  return len;
}

}  // namespace ckpt
