#include "node/dataset/sample_index.h"

#include <algorithm>

namespace ckpt {

SampleIndex::SampleIndex(const DatasetSpec& spec) : spec_(spec) {
  if (spec.format != DatasetFormat::kTar) return;
  table_ = BuildShardTable(spec);
  block_of_.resize(spec.samples);
  for (uint64_t k = 0; k < table_.shards(); ++k) {
    uint64_t at = 0;
    for (uint64_t s = table_.first_sample[k]; s < table_.first_sample[k + 1];
         ++s) {
      block_of_[s] = static_cast<uint32_t>((at + kTarBlock) / kTarBlock);
      at += TarRecordBytes(SampleSize(spec, s));
    }
  }
}

SampleIndex::SampleIndex(ListedDataset listed) {
  spec_.format = listed.format;
  spec_.samples = listed.samples;
  spec_.sample_bytes =
      listed.samples == 0 ? 0 : listed.sample_bytes / listed.samples;
  listed_ = std::move(listed);
}

SampleLocation SampleIndex::Locate(uint64_t sample) const {
  SampleLocation loc;
  if (listed_) {
    if (listed_->format == DatasetFormat::kFiles) {
      const ListedObject& o = listed_->objects[sample];
      return {o.name, 0, o.size, o.size};
    }
    const ListedDataset::Members& m = *listed_->members;
    const auto it =
        std::upper_bound(m.first_sample.begin(), m.first_sample.end(), sample);
    const size_t shard = static_cast<size_t>(it - m.first_sample.begin()) - 1;
    const ListedObject& o = listed_->objects[shard];
    return {o.name, static_cast<uint64_t>(m.block[sample]) * kTarBlock,
            m.size[sample], o.size};
  }
  loc.size = SampleSize(spec_, sample);
  if (spec_.format == DatasetFormat::kFiles) {
    loc.object = SampleObjectName(spec_, sample);
    loc.object_size = loc.size;
    return loc;
  }
  const uint64_t shard = table_.ShardOf(sample);
  loc.object = ShardName(shard);
  loc.offset = static_cast<uint64_t>(block_of_[sample]) * kTarBlock;
  loc.object_size = table_.bytes[shard];
  return loc;
}

uint64_t SampleIndex::objects() const {
  if (listed_) return listed_->objects.size();
  return spec_.format == DatasetFormat::kTar ? table_.shards() : spec_.samples;
}

std::string SampleIndex::ObjectName(uint64_t object) const {
  if (listed_) return listed_->objects[object].name;
  return spec_.format == DatasetFormat::kTar ? ShardName(object)
                                             : SampleObjectName(spec_, object);
}

uint64_t SampleIndex::ObjectSize(uint64_t object) const {
  if (listed_) return listed_->objects[object].size;
  return spec_.format == DatasetFormat::kTar ? table_.bytes[object]
                                             : SampleSize(spec_, object);
}

std::pair<uint64_t, uint64_t> SampleIndex::SamplesOf(uint64_t object) const {
  if (listed_ && listed_->format == DatasetFormat::kTar) {
    const ListedDataset::Members& m = *listed_->members;
    return {m.first_sample[object], m.first_sample[object + 1]};
  }
  if (spec_.format != DatasetFormat::kTar) return {object, object + 1};
  return {table_.first_sample[object], table_.first_sample[object + 1]};
}

uint64_t SampleIndex::ObjectOf(uint64_t sample) const {
  if (listed_ && listed_->format == DatasetFormat::kTar) {
    const ListedDataset::Members& m = *listed_->members;
    const auto it =
        std::upper_bound(m.first_sample.begin(), m.first_sample.end(), sample);
    return static_cast<uint64_t>(it - m.first_sample.begin()) - 1;
  }
  if (listed_ || spec_.format != DatasetFormat::kTar) return sample;
  return table_.ShardOf(sample);
}

}  // namespace ckpt
