#include "wire/dataset_codec.h"

#include "absl/strings/str_cat.h"
#include "common/dataset/dataset_manifest.h"

namespace ckpt {

v1::DatasetFormat FormatToWire(DatasetFormat f) {
  return f == DatasetFormat::kFiles ? v1::DATASET_FORMAT_FILES
                                    : v1::DATASET_FORMAT_TAR;
}

std::optional<DatasetFormat> FormatFromWire(v1::DatasetFormat w) {
  switch (w) {
    case v1::DATASET_FORMAT_FILES:
      return DatasetFormat::kFiles;
    case v1::DATASET_FORMAT_TAR:
      return DatasetFormat::kTar;
    default:
      return std::nullopt;
  }
}

absl::Status CheckManifestOnWire(const std::string& manifest,
                                 const std::string& what) {
  if (manifest.size() <= kMaxDatasetManifestBytes) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(what, " with a manifest of ",
                                          manifest.size(), " bytes (at most ",
                                          kMaxDatasetManifestBytes, ")"));
}

v1::DatasetSpec ToWire(const DatasetSpec& s) {
  v1::DatasetSpec w;
  w.set_format(FormatToWire(s.format));
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
  const std::optional<DatasetFormat> format = FormatFromWire(w.format());
  if (!format) {
    return absl::InvalidArgumentError(
        absl::StrCat("dataset.format: ", static_cast<int>(w.format()),
                     " is not a format this build knows (files, tar)"));
  }
  s.format = *format;
  s.samples = w.samples();
  s.sample_bytes = w.sample_bytes();
  s.sample_spread = w.sample_spread();
  s.shard_bytes = w.shard_bytes();
  s.spread_prefixes = w.spread_prefixes();
  s.seed = w.seed();
  return s;
}

}  // namespace ckpt
