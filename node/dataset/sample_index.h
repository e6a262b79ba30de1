// Where each sample of a dataset lies, for reads of single samples
// (map-style access): its object, the byte range of its data there, and
// the object's size (so object stores send no HEAD first). A dataset
// ckptbench made is derived from its manifest's numbers (on TAR shards 4
// bytes per sample: its data's offset in 512-byte blocks, and 16 per
// shard); a listed one (node/dataset/dataset_listing.h) is the listing
// and its member index. Thread-safe once built.
#ifndef CKPTBENCH_NODE_DATASET_SAMPLE_INDEX_H_
#define CKPTBENCH_NODE_DATASET_SAMPLE_INDEX_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/dataset/dataset_layout.h"
#include "node/dataset/dataset_listing.h"

namespace ckpt {

struct SampleLocation {
  std::string object;  // relative to the dataset's root
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t object_size = 0;
};

class SampleIndex {
 public:
  explicit SampleIndex(const DatasetSpec& spec);
  // A listed dataset: spec() then holds its format, sample count and mean
  // sample size only, and verified() is false.
  explicit SampleIndex(ListedDataset listed);
  // Whether the bytes are ckptbench's own, to be checked as they arrive.
  bool verified() const { return !listed_; }
  const ListedDataset* listed() const { return listed_ ? &*listed_ : nullptr; }
  SampleLocation Locate(uint64_t sample) const;
  // The dataset's objects (iterable access streams them whole): TAR
  // shards, or files of one sample each; object o holds samples
  // [SamplesOf(o).first, SamplesOf(o).second).
  uint64_t objects() const;
  std::string ObjectName(uint64_t object) const;
  uint64_t ObjectSize(uint64_t object) const;
  std::pair<uint64_t, uint64_t> SamplesOf(uint64_t object) const;
  // The object that holds `sample`.
  uint64_t ObjectOf(uint64_t sample) const;
  const DatasetSpec& spec() const { return spec_; }
  const ShardTable& shards() const { return table_; }

 private:
  DatasetSpec spec_;
  ShardTable table_;                // tar
  std::vector<uint32_t> block_of_;  // tar: each sample's data, in blocks
  std::optional<ListedDataset> listed_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_SAMPLE_INDEX_H_
