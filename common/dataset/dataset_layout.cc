#include "common/dataset/dataset_layout.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "common/hash_mix.h"

namespace ckpt {
namespace {

constexpr uint64_t kSizeSalt = 0x73697a6573616d70ull;    // "sizesamp"
constexpr uint64_t kPrefixSalt = 0x7072656669787370ull;  // "prefixsp"

absl::Status Field(const std::string& what, const char* field, uint64_t v,
                   const std::string& expected) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": ", field, " is ", v, "; expected ", expected));
}

uint64_t Pad(uint64_t n) { return (n + kTarBlock - 1) / kTarBlock * kTarBlock; }

}  // namespace

absl::Status CheckDatasetSpec(const DatasetSpec& s, const std::string& what) {
  if (s.samples < 1 || s.samples > kMaxDatasetSamples) {
    return Field(what, "samples", s.samples,
                 absl::StrCat("1 to ", kMaxDatasetSamples));
  }
  if (s.sample_bytes < 1 || s.sample_bytes > kMaxSampleBytes) {
    return Field(what, "sample_bytes", s.sample_bytes,
                 absl::StrCat("1 to ", kMaxSampleBytes));
  }
  if (s.sample_spread > s.sample_bytes) {
    return Field(what, "sample_spread", s.sample_spread,
                 absl::StrCat("at most sample_bytes (", s.sample_bytes, ")"));
  }
  if (s.format == DatasetFormat::kTar &&
      (s.shard_bytes < 4096 || s.shard_bytes > (1ull << 40))) {
    return Field(what, "shard_bytes", s.shard_bytes,
                 "4096 to 1099511627776 (1 TiB) for tar shards");
  }
  if (s.spread_prefixes > kMaxSpreadPrefixes) {
    return Field(what, "spread_prefixes", s.spread_prefixes,
                 absl::StrCat("0 to ", kMaxSpreadPrefixes));
  }
  return absl::OkStatus();
}

uint64_t SampleSize(const DatasetSpec& spec, uint64_t sample) {
  if (spec.sample_spread == 0) return spec.sample_bytes;
  // Twelve 16-bit uniforms from three hashes: their sum has mean 12 x
  // 32767.5 and standard deviation 65536 (12 x 65536^2 / 12), so
  // (2 sum - 12 x 65535) / 131072 is close to a standard normal.
  const uint64_t key = Mix64(spec.seed ^ kSizeSalt) + sample * kGolden;
  int64_t sum = 0;
  for (uint64_t h = 0; h < 3; ++h) {
    uint64_t r = Mix64(key + h * 0x632be59bd9b4e019ull);
    for (int k = 0; k < 4; ++k)
      sum += static_cast<int64_t>((r >> (16 * k)) & 0xffff);
  }
  const int64_t z2 = 2 * sum - 12 * 65535;  // |z2| <= 786420 < 2^20
  // spread <= 2^32, so the product stays within 2^53.
  const int64_t delta = static_cast<int64_t>(spec.sample_spread) * z2 / 131072;
  int64_t size = static_cast<int64_t>(spec.sample_bytes) + delta;
  size = std::clamp<int64_t>(size, 1, static_cast<int64_t>(kMaxSampleBytes));
  return static_cast<uint64_t>(size);
}

uint32_t SampleLabel(uint64_t sample) {
  return static_cast<uint32_t>(sample % kLabelClasses);
}

std::string SampleKey(uint64_t sample) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "s%010llu",
                static_cast<unsigned long long>(sample));
  return buf;
}

std::string LabelText(uint64_t sample) {
  return absl::StrCat(SampleLabel(sample));
}

std::string SampleObjectName(const DatasetSpec& spec, uint64_t sample) {
  std::string name = "samples/";
  if (spec.spread_prefixes > 0) {
    uint64_t h = Mix64(sample ^ kPrefixSalt) % spec.spread_prefixes;
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%02llx/",
                  static_cast<unsigned long long>(h));
    name += buf;
  }
  return absl::StrCat(name, SampleKey(sample), ".jpg");
}

uint64_t TarRecordBytes(uint64_t sample_size) {
  return kTarBlock + Pad(sample_size) + kTarBlock + kTarBlock;
}

std::string ShardName(uint64_t shard) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "shards/shard-%06llu.tar",
                static_cast<unsigned long long>(shard));
  return buf;
}

uint64_t ShardTable::ShardOf(uint64_t sample) const {
  auto it =
      std::upper_bound(first_sample.begin(), first_sample.end() - 1, sample);
  return static_cast<uint64_t>(it - first_sample.begin()) - 1;
}

ShardTable BuildShardTable(const DatasetSpec& spec) {
  ShardTable t;
  uint64_t bytes = 0;  // of the open shard, without its trailer
  for (uint64_t i = 0; i < spec.samples; ++i) {
    const uint64_t rec = TarRecordBytes(SampleSize(spec, i));
    if (t.first_sample.empty() ||
        (bytes > 0 && bytes + rec + kTarTrailerBytes > spec.shard_bytes)) {
      if (!t.first_sample.empty()) t.bytes.push_back(bytes + kTarTrailerBytes);
      t.first_sample.push_back(i);
      bytes = 0;
    }
    bytes += rec;
  }
  if (!t.first_sample.empty()) t.bytes.push_back(bytes + kTarTrailerBytes);
  t.first_sample.push_back(spec.samples);
  return t;
}

uint64_t ApproxObjects(const DatasetSpec& spec) {
  if (spec.format != DatasetFormat::kTar) return spec.samples;
  const uint64_t record = TarRecordBytes(spec.sample_bytes);
  const uint64_t per_shard =
      std::max<uint64_t>(1, record == 0 ? 1 : spec.shard_bytes / record);
  return std::max<uint64_t>(1, (spec.samples + per_shard - 1) / per_shard);
}

DatasetTotals ComputeTotals(const DatasetSpec& spec) {
  DatasetTotals t;
  for (uint64_t i = 0; i < spec.samples; ++i)
    t.sample_bytes += SampleSize(spec, i);
  if (spec.format == DatasetFormat::kFiles) {
    t.objects = spec.samples;
    t.bytes = t.sample_bytes;
    return t;
  }
  ShardTable table = BuildShardTable(spec);
  t.objects = table.shards();
  for (uint64_t b : table.bytes) t.bytes += b;
  return t;
}

}  // namespace ckpt
