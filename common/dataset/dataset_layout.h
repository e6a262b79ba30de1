// A dataset ckptbench makes (`ckptbench datagen`) and reads back (the
// dataload workload), derived whole from a few numbers (DatasetSpec), so a
// node, the coordinator and a reader of the manifest agree on every
// sample's size, name, shard and byte offset without storing them.
//
// Samples: N of them, sample i holding SampleSize(spec, i) bytes of the
// deterministic pattern keyed by (seed, i) (node/dataset/dataset_bytes.h)
// and the label i mod 1000. Sizes: `sample_bytes` each, or with
// `sample_spread` > 0 an approximately normal spread around it (the sum of
// twelve uniform draws, Irwin-Hall, so within six spreads of the mean),
// in integer arithmetic from a hash of (seed, i): every platform derives
// the same sizes. At least 1 byte, at most kMaxSampleBytes.
//
// Formats (dataset.format):
//  - files: one object per sample, "samples/[HH/]s<10 digits>.jpg" under
//    the dataset's root; with spread_prefixes = P, HH is a hash of the
//    sample mod P in two or more hex digits (object stores partition by
//    key prefix; a directory of millions of entries is slow).
//  - tar: POSIX ustar shards "shards/shard-<6 digits>.tar" in WebDataset's
//    layout: per sample, "s<10 digits>.jpg" (its bytes) then
//    "s<10 digits>.cls" (the label in ASCII decimal), each a 512-byte
//    header and its data padded to 512 bytes, and two zero blocks at the
//    end. Samples fill shards in order; a shard takes the next sample while
//    it stays within `shard_bytes` (a sample larger than that gets a shard
//    of its own).
// Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_DATASET_DATASET_LAYOUT_H_
#define CKPTBENCH_COMMON_DATASET_DATASET_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/kinds.h"

namespace ckpt {

inline constexpr uint64_t kMaxSampleBytes = 1ull << 32;     // 4 GiB
inline constexpr uint64_t kMaxDatasetSamples = 1ull << 30;  // 1 Gi
inline constexpr uint32_t kMaxSpreadPrefixes = 1u << 16;
inline constexpr uint64_t kTarBlock = 512;
inline constexpr uint32_t kLabelClasses = 1000;

struct DatasetSpec {
  DatasetFormat format = DatasetFormat::kTar;
  uint64_t samples = 0;
  uint64_t sample_bytes = 0;     // the mean
  uint64_t sample_spread = 0;    // the standard deviation; 0: all equal
  uint64_t shard_bytes = 0;      // tar: a shard's target size
  uint32_t spread_prefixes = 0;  // files: 0 = none
  uint64_t seed = 0;

  bool operator==(const DatasetSpec&) const = default;
};

// Whether the numbers describe a dataset this build can make and read:
// samples in [1, kMaxDatasetSamples], sample_bytes in [1,
// kMaxSampleBytes], sample_spread at most sample_bytes, shard_bytes (tar)
// at least 4 KiB and at most 1 TiB, spread_prefixes at most
// kMaxSpreadPrefixes. The error names the field (`what` says whose: a
// key, a manifest) and what was expected.
absl::Status CheckDatasetSpec(const DatasetSpec& spec, const std::string& what);

uint64_t SampleSize(const DatasetSpec& spec, uint64_t sample);
uint32_t SampleLabel(uint64_t sample);
// "s0000000042": the WebDataset key (no dot in it).
std::string SampleKey(uint64_t sample);
// The label as a .cls member holds it: ASCII decimal, no newline.
std::string LabelText(uint64_t sample);

// files: the sample's object, relative to the dataset's root.
std::string SampleObjectName(const DatasetSpec& spec, uint64_t sample);

// tar: the bytes one sample takes in its shard (two headers, the data and
// the label, each padded).
uint64_t TarRecordBytes(uint64_t sample_size);
inline constexpr uint64_t kTarTrailerBytes = 2 * kTarBlock;
std::string ShardName(uint64_t shard);  // "shards/shard-000042.tar"

// Where each shard begins and how big it is: walks every sample once
// (tens of ns each). Holds 16 bytes per shard.
struct ShardTable {
  std::vector<uint64_t> first_sample;  // per shard, then `samples` at the end
  std::vector<uint64_t> bytes;         // per shard
  uint64_t shards() const { return bytes.size(); }
  // The shard that holds `sample` (binary search).
  uint64_t ShardOf(uint64_t sample) const;
};
ShardTable BuildShardTable(const DatasetSpec& spec);

// The objects' count without walking every sample (a plan's memory
// estimate, before the walk): files, the samples; tar, the samples over
// how many records of the mean size fit a shard.
uint64_t ApproxObjects(const DatasetSpec& spec);

// Every object's bytes summed (tar: the shards; files: the samples), and
// how many objects there are.
struct DatasetTotals {
  uint64_t objects = 0;
  uint64_t bytes = 0;
  uint64_t sample_bytes = 0;  // the samples' own bytes (no headers)
};
DatasetTotals ComputeTotals(const DatasetSpec& spec);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_DATASET_DATASET_LAYOUT_H_
