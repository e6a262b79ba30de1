// The dataset workloads' keys: the dataset's (dataset.*), what `ckptbench
// datagen` makes and the dataload workload reads, and the data loader's
// (dataload.*).
#include "common/dataset/dataset_keys.h"

#include <utility>

#include "common/config_keys.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_layout.h"
#include "common/dataset/dataset_options.h"
#include "common/dataset/epoch_order.h"

namespace ckpt {

using namespace keydefs;  // NOLINT: the key-building helpers

namespace {

// The data loader's keys (dataload.*), after the dataset's.
void AddDataloadKeys(std::vector<KeyDef>* out) {
  std::vector<KeyDef>& keys = *out;
  keys.push_back(KindKey<DataAccess>(
      "dataload.access", "CKPT_DATALOAD_ACCESS",
      [](auto& c) -> auto& { return DataloadOf(c).access; },
      "map: a request per sample in the sampler's order (TAR shards: a "
      "ranged read of the member); iterable: objects split over ranks and "
      "workers as WebDataset does, each streamed whole through a shuffle "
      "buffer"));
  keys.push_back(IntKey(
      "dataload.epochs", "CKPT_EPOCHS", 1,
      [](auto& c) -> auto& { return DataloadOf(c).epochs; },
      "epochs, each a timed round"));
  keys.push_back(IntKey(
      "dataload.batch_size", "CKPT_BATCH_SIZE", 1,
      [](auto& c) -> auto& { return DataloadOf(c).batch_size; },
      "samples per batch"));
  keys.push_back(IntKey(
      "dataload.num_workers", "CKPT_NUM_WORKERS", 1, kMaxDataloadWorkers,
      [](auto& c) -> auto& { return DataloadOf(c).num_workers; },
      "workers per rank, each making whole batches (requests in flight per "
      "rank), each with its own connections"));
  keys.push_back(IntKey(
      "dataload.prefetch_factor", "CKPT_PREFETCH_FACTOR", 1, kMaxPrefetchFactor,
      [](auto& c) -> auto& { return DataloadOf(c).prefetch_factor; },
      "batches each worker keeps ready ahead of the accelerator"));
  keys.push_back(DurationKey(
      "dataload.compute_time", "CKPT_COMPUTE_TIME", kMaxDataloadStepSeconds,
      [](auto& c) -> auto& { return DataloadOf(c).compute_time; },
      "the emulated accelerator's time per batch (0: no backpressure, the "
      "loader's upper limit)"));
  keys.push_back(DurationKey(
      "dataload.preprocess_time", "CKPT_PREPROCESS_TIME",
      kMaxDataloadStepSeconds,
      [](auto& c) -> auto& { return DataloadOf(c).preprocess_time; },
      "a worker's time per sample after reading it (decoding), slept"));
  keys.push_back(BoolKey(
      "dataload.shuffle", "CKPT_SHUFFLE",
      [](auto& c) -> auto& { return DataloadOf(c).shuffle; },
      "a new order every epoch (by run.seed and the epoch)"));
  keys.push_back(BoolKey(
      "dataload.drop_last", "CKPT_DROP_LAST",
      [](auto& c) -> auto& { return DataloadOf(c).drop_last; },
      "the sampler drops the samples that do not divide by the ranks "
      "(false: pads by reading some twice)"));
  keys.push_back(BoolKey(
      "dataload.warm_epochs", "CKPT_WARM_EPOCHS",
      [](auto& c) -> auto& { return DataloadOf(c).warm_epochs; },
      "epochs after the first may read from caches (page cache, FUSE "
      "client caches); the first is always cold"));
  keys.push_back(IntKey(
      "dataload.shuffle_buffer", "CKPT_SHUFFLE_BUFFER", 1,
      static_cast<int>(kMaxShuffleBuffer),
      [](auto& c) -> auto& { return DataloadOf(c).shuffle_buffer; },
      "iterable access: samples each worker holds to shuffle (WebDataset's "
      "shuffle(K)); 1: the objects' own order"));
  keys.push_back(IntKey(
      "dataload.checkpoint_every", "CKPT_CHECKPOINT_EVERY", 0,
      [](auto& c) -> auto& { return DataloadOf(c).checkpoint_every; },
      "a checkpoint (model.*, sync or run.async) after every N batches of "
      "each rank, under storage.path's checkpoints/ (0: none)"));
  keys.push_back(IntKey(
      "dataload.find_accelerators", "CKPT_FIND_ACCELERATORS", 0,
      [](auto& c) -> auto& { return DataloadOf(c).find_accelerators; },
      "search the most accelerators (ranks per node, up to N) the storage "
      "keeps at >= 90% utilization at dataload.compute_time, one cold epoch "
      "per count (0: no search)"));
}

}  // namespace

void AddDatasetKeys(std::vector<KeyDef>* out,
                    std::vector<WorkloadChoice>* workloads) {
  WorkloadChoice datagen;
  datagen.name = kDatagenWorkload;
  datagen.does =
      "make the dataset dataset.* describes; also `ckptbench datagen`";
  datagen.prepares = "the points' dataset made first";
  datagen.usage = {
      "make the dataset dataset.* describes (dataset.path: a path,",
      "file://, s3:// or gs://), timed, as `run` does a checkpoint",
      "(multinode: run.workload=datagen with coordinator and node);",
      "a matching dataset is reused; --remove removes one it made"};
  datagen.flags = {{"--remove", "datagen: remove the dataset (dataset.remove)",
                    "dataset.remove=true"}};
  workloads->push_back(std::move(datagen));
  WorkloadChoice dataload;
  dataload.name = kDataloadWorkload;
  dataload.does = "read it epoch by epoch as a data loader does: dataload.*";
  workloads->push_back(std::move(dataload));
  std::vector<KeyDef>& keys = *out;
  keys.push_back(StringKey(
      "dataset.path", "CKPT_DATASET_PATH",
      "a path, file://path, s3:// or gs:// URI",
      [](auto& c) -> auto& { return DatasetOf(c).path; },
      "where the dataset lives (default <storage.path>/dataset)"));
  keys.push_back(KindKey<DatasetSource>(
      "dataset.source", "CKPT_DATASET_SOURCE",
      [](auto& c) -> auto& { return DatasetOf(c).source; },
      "dataload: ckptbench (a dataset datagen made: its manifest read, every "
      "byte verified) or listed (your own files or *.tar shards of "
      "dataset.format under dataset.path: listed, shards indexed at "
      "prepare, read unverified)"));
  keys.push_back(KindKey<DatasetFormat>(
      "dataset.format", "CKPT_DATASET_FORMAT",
      [](auto& c) -> auto& { return DatasetOf(c).format; },
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
      DatasetOf(c).samples = n;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) {
      return std::to_string(DatasetOf(c).samples);
    };
    keys.push_back(k);
  }
  keys.push_back(SizeKey(
      "dataset.sample_bytes", "CKPT_SAMPLE_BYTES", 1, kMaxSampleBytes, 1,
      [](auto& c) -> auto& { return DatasetOf(c).sample_bytes; },
      "a sample's size, the mean when dataset.sample_spread > 0"));
  {
    KeyDef k = NewKey("dataset.sample_spread", "CKPT_SAMPLE_SPREAD",
                      absl::StrCat("auto or a byte size from 0 to ",
                                   SizeText(kMaxSampleBytes)),
                      "standard deviation of sample sizes: auto = a sixth "
                      "of dataset.sample_bytes (25KiB for 150KiB), 0 = all "
                      "the same; at most dataset.sample_bytes");
    k.set = [expected = k.expected](Config& c,
                                    const std::string& v) -> absl::Status {
      if (v == "auto") {
        DatasetOf(c).sample_spread = kAutoSpread;
        return absl::OkStatus();
      }
      auto s = ParseByteSize(v);
      if (!s.ok() || *s > kMaxSampleBytes) return Expect(expected);
      DatasetOf(c).sample_spread = *s;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) {
      return DatasetOf(c).sample_spread == kAutoSpread
                 ? std::string("auto")
                 : std::to_string(DatasetOf(c).sample_spread);
    };
    keys.push_back(k);
  }
  keys.push_back(SizeKey(
      "dataset.shard_bytes", "CKPT_SHARD_BYTES", 4096, 1ull << 40, 1,
      [](auto& c) -> auto& { return DatasetOf(c).shard_bytes; },
      "tar: a shard's target size (samples fill it in order)"));
  keys.push_back(IntKey(
      "dataset.spread_prefixes", "CKPT_DATASET_SPREAD_PREFIXES", 0,
      [](auto& c) -> auto& { return DatasetOf(c).spread_prefixes; },
      "files: samples under N hash prefixes (samples/HH/); 0 = one "
      "directory"));
  {
    KeyDef k = NewKey("dataset.seed", "CKPT_DATASET_SEED",
                      "an integer from 0 to 18446744073709551615",
                      "seed of the samples' sizes and bytes");
    k.set = [](Config& c, const std::string& v) {
      return ParseU64(v, &DatasetOf(c).seed);
    };
    k.get = [](const Config& c) { return std::to_string(DatasetOf(c).seed); };
    keys.push_back(k);
  }
  keys.push_back(IntKey(
      "dataset.write_threads", "CKPT_DATAGEN_THREADS", 1,
      kMaxDatagenWriteThreads,
      [](auto& c) -> auto& { return DatasetOf(c).write_threads; },
      "datagen: objects each node writes at once"));
  keys.push_back(BoolKey(
      "dataset.remove", "CKPT_DATASET_REMOVE",
      [](auto& c) -> auto& { return DatasetOf(c).remove; },
      "datagen: remove the dataset ckptbench made at dataset.path (its "
      "manifest first, then exactly the objects it names)"));
  keys.push_back(CountKey(
      "dataset.list_max_objects", "CKPT_LIST_MAX_OBJECTS", 1, 1ull << 32,
      [](auto& c) -> auto& { return DatasetOf(c).list.max_objects; },
      "listed datasets: the most objects (and prefixes) a listing may "
      "return"));
  keys.push_back(CountKey(
      "dataset.list_max_pages", "CKPT_LIST_MAX_PAGES", 1, 1ull << 32,
      [](auto& c) -> auto& { return DatasetOf(c).list.max_pages; },
      "listed datasets on object stores: the most pages a listing may take"));
  keys.push_back(SizeKey(
      "dataset.list_max_key_bytes", "CKPT_LIST_MAX_KEY_BYTES", 4096, 1ull << 40,
      1, [](auto& c) -> auto& { return DatasetOf(c).list.max_key_bytes; },
      "listed datasets: the most bytes of names (and versions) a listing "
      "may hold"));
  keys.push_back(SizeKey(
      "dataset.list_max_page_bytes", "CKPT_LIST_MAX_PAGE_BYTES", 64 * 1024,
      1ull << 30, 1,
      [](auto& c) -> auto& { return DatasetOf(c).list.max_page_bytes; },
      "listed datasets on object stores: the most bytes one listing page's "
      "answer may have"));
  keys.push_back(SizeKey(
      "dataset.list_max_bytes", "CKPT_LIST_MAX_BYTES", 64 * 1024, 1ull << 44, 1,
      [](auto& c) -> auto& { return DatasetOf(c).list.max_bytes; },
      "listed datasets on object stores: the most bytes all of a listing's "
      "answers may have"));
  AddDataloadKeys(out);
}

}  // namespace ckpt
