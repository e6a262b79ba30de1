#include "common/dataset/dataset_options.h"

namespace ckpt {

std::string DatasetPath(const Config& c) {
  if (!DatasetOf(c).path.empty()) return DatasetOf(c).path;
  std::string p = c.storage.path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p + "/dataset";
}

uint64_t SampleSpread(const Config& c) {
  const DatasetOptions& d = DatasetOf(c);
  return d.sample_spread == kAutoSpread ? d.sample_bytes / 6 : d.sample_spread;
}

DatasetSpec DatasetSpecOf(const Config& c) {
  const DatasetOptions& d = DatasetOf(c);
  DatasetSpec s;
  s.format = d.format;
  s.samples = d.samples;
  s.sample_bytes = d.sample_bytes;
  s.sample_spread = SampleSpread(c);
  s.shard_bytes = d.format == DatasetFormat::kTar ? d.shard_bytes : 0;
  s.spread_prefixes = d.format == DatasetFormat::kFiles
                          ? static_cast<uint32_t>(d.spread_prefixes)
                          : 0;
  s.seed = d.seed;
  return s;
}

}  // namespace ckpt
