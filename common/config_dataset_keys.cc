// The dataset's keys (dataset.*) and the workload a run does (run.workload):
// what `ckptbench datagen` makes and the dataload workload reads.
#include "common/config_keys.h"
#include "common/dataset_layout.h"

namespace ckpt {

using namespace keydefs;  // NOLINT: the key-building helpers

void AddDatasetKeys(std::vector<KeyDef>* out) {
  std::vector<KeyDef>& keys = *out;
  keys.push_back(KindKey<Workload>(
      "run.workload", "CKPT_WORKLOAD",
      [](Config& c) -> Workload& { return c.run.workload; },
      "what the run does: checkpoint (save and load rounds), datagen (make "
      "the dataset dataset.* describes; also `ckptbench datagen`)"));
  keys.push_back(StringKey(
      "dataset.path", "CKPT_DATASET_PATH",
      "a path, file://path, s3:// or gs:// URI",
      [](Config& c) -> std::string& { return c.dataset.path; },
      "where the dataset lives (default <storage.path>/dataset)"));
  keys.push_back(KindKey<DatasetFormat>(
      "dataset.format", "CKPT_DATASET_FORMAT",
      [](Config& c) -> DatasetFormat& { return c.dataset.format; },
      "files: one object per sample; tar: WebDataset TAR shards"));
  {
    KeyDef k = NewKey("dataset.samples", "CKPT_DATASET_SAMPLES",
                      absl::StrCat("an integer from 1 to ", kMaxDatasetSamples),
                      "samples in the dataset");
    k.set = [expected = k.expected](Config& c,
                                    const std::string& v) -> absl::Status {
      uint64_t n = 0;
      if (!ParseU64(v, &n).ok() || n < 1 || n > kMaxDatasetSamples) {
        return Expect(expected);
      }
      c.dataset.samples = n;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) { return std::to_string(c.dataset.samples); };
    keys.push_back(k);
  }
  keys.push_back(SizeKey(
      "dataset.sample_bytes", "CKPT_SAMPLE_BYTES", 1, kMaxSampleBytes, 1,
      [](Config& c) -> uint64_t& { return c.dataset.sample_bytes; },
      "a sample's size, the mean when dataset.sample_spread > 0"));
  keys.push_back(SizeKey(
      "dataset.sample_spread", "CKPT_SAMPLE_SPREAD", 0, kMaxSampleBytes, 1,
      [](Config& c) -> uint64_t& { return c.dataset.sample_spread; },
      "standard deviation of sample sizes (0: all the same; at most "
      "dataset.sample_bytes)"));
  keys.push_back(SizeKey(
      "dataset.shard_bytes", "CKPT_SHARD_BYTES", 4096, 1ull << 40, 1,
      [](Config& c) -> uint64_t& { return c.dataset.shard_bytes; },
      "tar: a shard's target size (samples fill it in order)"));
  keys.push_back(IntKey(
      "dataset.spread_prefixes", "CKPT_DATASET_SPREAD_PREFIXES", 0,
      [](Config& c) -> int& { return c.dataset.spread_prefixes; },
      "files: samples under N hash prefixes (samples/HH/); 0 = one "
      "directory"));
  {
    KeyDef k = NewKey("dataset.seed", "CKPT_DATASET_SEED",
                      "an integer from 0 to 18446744073709551615",
                      "seed of the samples' sizes and bytes");
    k.set = [](Config& c, const std::string& v) {
      return ParseU64(v, &c.dataset.seed);
    };
    k.get = [](const Config& c) { return std::to_string(c.dataset.seed); };
    keys.push_back(k);
  }
  keys.push_back(IntKey(
      "dataset.write_threads", "CKPT_DATAGEN_THREADS", 1,
      [](Config& c) -> int& { return c.dataset.write_threads; },
      "datagen: objects each node writes at once"));
  keys.push_back(BoolKey(
      "dataset.remove", "CKPT_DATASET_REMOVE",
      [](Config& c) -> bool& { return c.dataset.remove; },
      "datagen: remove the dataset ckptbench made at dataset.path (its "
      "manifest first, then exactly the objects it names)"));
}

}  // namespace ckpt
