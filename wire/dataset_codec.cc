#include "wire/dataset_codec.h"

#include "absl/strings/str_cat.h"

namespace ckpt {

v1::DatasetSpec ToWire(const DatasetSpec& s) {
  v1::DatasetSpec w;
  w.set_format(s.format == DatasetFormat::kFiles ? v1::DATASET_FORMAT_FILES
                                                 : v1::DATASET_FORMAT_TAR);
  w.set_samples(s.samples);
  w.set_sample_bytes(s.sample_bytes);
  w.set_sample_spread(s.sample_spread);
  w.set_shard_bytes(s.shard_bytes);
  w.set_spread_prefixes(s.spread_prefixes);
  w.set_seed(s.seed);
  return w;
}

absl::StatusOr<DatasetSpec> FromWire(const v1::DatasetSpec& w) {
  DatasetSpec s;
  switch (w.format()) {
    case v1::DATASET_FORMAT_FILES:
      s.format = DatasetFormat::kFiles;
      break;
    case v1::DATASET_FORMAT_TAR:
      s.format = DatasetFormat::kTar;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("dataset.format: ", static_cast<int>(w.format()),
                       " is not a format this build knows (files, tar)"));
  }
  s.samples = w.samples();
  s.sample_bytes = w.sample_bytes();
  s.sample_spread = w.sample_spread();
  s.shard_bytes = w.shard_bytes();
  s.spread_prefixes = w.spread_prefixes();
  s.seed = w.seed();
  return s;
}

}  // namespace ckpt
