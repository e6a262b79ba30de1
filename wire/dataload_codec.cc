#include "wire/dataload_codec.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dataset_manifest.h"
#include "common/status_macros.h"
#include "proto/ckptbench/v1/dataset.pb.h"
#include "wire/backend_codec.h"
#include "wire/kinds_codec.h"
#include "wire/prepare_codec.h"

namespace ckpt {
namespace {

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("dataload: ", what));
}

// A count the key table holds as an int: one past int's range is refused
// here (the table would see it wrapped), naming the key.
absl::StatusOr<int> AsInt(uint32_t v, const char* key) {
  if (v > static_cast<uint32_t>(std::numeric_limits<int>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, " = '", v, "': out of range"));
  }
  return static_cast<int>(v);
}

absl::StatusOr<DataloadOptions> LoaderFromWire(const v1::DataloadJob& w) {
  DataloadOptions o;
  switch (w.access()) {
    case v1::DATA_ACCESS_MAP:
      o.access = DataAccess::kMap;
      break;
    case v1::DATA_ACCESS_ITERABLE:
      o.access = DataAccess::kIterable;
      break;
    default:
      return Bad(absl::StrCat("an access of ", static_cast<int>(w.access()),
                              ": expected map or iterable"));
  }
  ASSIGN_OR_RETURN(o.batch_size, AsInt(w.batch_size(), "dataload.batch_size"));
  ASSIGN_OR_RETURN(o.num_workers,
                   AsInt(w.num_workers(), "dataload.num_workers"));
  ASSIGN_OR_RETURN(o.prefetch_factor,
                   AsInt(w.prefetch_factor(), "dataload.prefetch_factor"));
  ASSIGN_OR_RETURN(o.shuffle_buffer,
                   AsInt(w.shuffle_buffer(), "dataload.shuffle_buffer"));
  o.compute_time = w.compute_seconds();
  o.preprocess_time = w.preprocess_seconds();
  o.shuffle = w.shuffle();
  o.drop_last = w.drop_last();
  return o;
}

// The loader's settings and the block size as the key table takes them:
// one bound for the configuration and the node.
absl::Status CheckThroughKeys(const DataloadOptions& loader,
                              uint64_t block_size) {
  Config c;
  c.dataload = loader;
  c.io.block_size = block_size;
  RETURN_IF_ERROR(RecheckKeys(c, "dataload."));
  return RecheckKeys(c, "io.block_size");
}

absl::StatusOr<EpochCheckpointJob> CheckpointFromWire(
    const v1::EpochCheckpoint& w) {
  if (w.every_batches() < 1) {
    return Bad("a checkpoint every 0 batches");
  }
  EpochCheckpointJob c;
  c.every_batches = w.every_batches();
  c.first_step = w.first_step();
  c.first_step_uri = w.first_step_uri();
  ASSIGN_OR_RETURN(c.save, FromWire(w.save()));
  if (!c.save.workload.empty() || !c.save.save) {
    return Bad("an epoch's checkpoint job that is not a save");
  }
  return c;
}

v1::DatasetListing ListingToWire(const DatasetListing& l) {
  v1::DatasetListing w;
  w.set_objects(l.objects);
  w.set_bytes(l.bytes);
  w.set_samples(l.samples);
  w.set_sample_bytes(l.sample_bytes);
  w.set_ignored(l.ignored);
  w.set_digest(l.digest);
  w.set_list_seconds(l.list_seconds);
  w.set_list_requests(l.list_requests);
  w.set_index_seconds(l.index_seconds);
  w.set_index_requests(l.index_requests);
  w.set_index_bytes(l.index_bytes);
  w.set_index_reused(l.index_reused);
  w.set_overlong_objects(l.overlong_objects);
  w.set_overlong_bytes(l.overlong_bytes);
  w.set_overlong_first(l.overlong_first);
  return w;
}

DatasetListing ListingFromWire(const v1::DatasetListing& w) {
  DatasetListing l;
  l.objects = w.objects();
  l.bytes = w.bytes();
  l.samples = w.samples();
  l.sample_bytes = w.sample_bytes();
  l.ignored = w.ignored();
  l.digest = w.digest();
  l.list_seconds = w.list_seconds();
  l.list_requests = w.list_requests();
  l.index_seconds = w.index_seconds();
  l.index_requests = w.index_requests();
  l.index_bytes = w.index_bytes();
  l.index_reused = w.index_reused();
  l.overlong_objects = w.overlong_objects();
  l.overlong_bytes = w.overlong_bytes();
  l.overlong_first = w.overlong_first();
  return l;
}

}  // namespace

std::string EncodeDataloadJob(const DataloadJob& job) {
  v1::DataloadJob w;
  w.set_dataset_uri(job.dataset_uri);
  w.set_first_rank(job.first_rank);
  w.set_ranks(job.ranks);
  w.set_world(job.world);
  w.set_epoch(job.epoch);
  w.set_seed(job.seed);
  const DataloadOptions& o = job.loader;
  w.set_shuffle(o.shuffle);
  w.set_drop_last(o.drop_last);
  w.set_access(o.access == DataAccess::kIterable ? v1::DATA_ACCESS_ITERABLE
                                                 : v1::DATA_ACCESS_MAP);
  w.set_shuffle_buffer(static_cast<uint32_t>(o.shuffle_buffer));
  w.set_batch_size(static_cast<uint32_t>(o.batch_size));
  w.set_num_workers(static_cast<uint32_t>(o.num_workers));
  w.set_prefetch_factor(static_cast<uint32_t>(o.prefetch_factor));
  w.set_compute_seconds(o.compute_time);
  w.set_preprocess_seconds(o.preprocess_time);
  if (job.listed) {
    w.set_listed(true);
    w.set_listed_format(job.listed_format == DatasetFormat::kFiles
                            ? v1::DATASET_FORMAT_FILES
                            : v1::DATASET_FORMAT_TAR);
    v1::ListingLimits& limits = *w.mutable_list_limits();
    limits.set_max_objects(job.list_limits.max_objects);
    limits.set_max_pages(job.list_limits.max_pages);
    limits.set_max_key_bytes(job.list_limits.max_key_bytes);
    limits.set_max_page_bytes(job.list_limits.max_page_bytes);
    limits.set_max_bytes(job.list_limits.max_bytes);
  }
  w.set_block_size(job.block_size);
  *w.mutable_backend() = ToWire(job.backend);
  w.set_cache_mode(ToWire(job.cache_mode));
  if (job.checkpoint) {
    v1::EpochCheckpoint& c = *w.mutable_checkpoint();
    c.set_every_batches(job.checkpoint->every_batches);
    c.set_first_step(job.checkpoint->first_step);
    c.set_first_step_uri(job.checkpoint->first_step_uri);
    *c.mutable_save() = ToWire(job.checkpoint->save);
  }
  return w.SerializeAsString();
}

absl::StatusOr<DataloadJob> DecodeDataloadJob(const std::string& bytes) {
  v1::DataloadJob w;
  if (!w.ParseFromString(bytes)) return Bad("a job that does not parse");
  DataloadJob job;
  job.dataset_uri = w.dataset_uri();
  job.first_rank = w.first_rank();
  job.ranks = w.ranks();
  job.world = w.world();
  if (job.ranks < 1 || job.ranks > static_cast<uint32_t>(kMaxDataloadRanks) ||
      job.world < 1 || job.first_rank >= job.world ||
      job.ranks > job.world - job.first_rank) {
    return Bad(absl::StrCat("ranks ", job.first_rank, " + ", job.ranks,
                            " of a world of ", job.world, " are no share"));
  }
  job.epoch = w.epoch();
  job.seed = w.seed();
  ASSIGN_OR_RETURN(job.loader, LoaderFromWire(w));
  job.block_size = w.block_size();
  RETURN_IF_ERROR(CheckThroughKeys(job.loader, job.block_size));
  ASSIGN_OR_RETURN(job.backend, FromWire(w.backend()));
  RETURN_IF_ERROR(CheckBackendOptions(job.backend));
  ASSIGN_OR_RETURN(job.cache_mode, FromWire(w.cache_mode(), "io.cache_mode"));
  job.listed = w.listed();
  if (job.listed) {
    switch (w.listed_format()) {
      case v1::DATASET_FORMAT_FILES:
        job.listed_format = DatasetFormat::kFiles;
        break;
      case v1::DATASET_FORMAT_TAR:
        job.listed_format = DatasetFormat::kTar;
        break;
      default:
        return Bad(absl::StrCat("a listed dataset of format ",
                                static_cast<int>(w.listed_format()),
                                ": expected files or tar"));
    }
    const v1::ListingLimits& l = w.list_limits();
    job.list_limits = {l.max_objects(), l.max_pages(), l.max_key_bytes(),
                       l.max_page_bytes(), l.max_bytes()};
  }
  if (w.has_checkpoint()) {
    ASSIGN_OR_RETURN(job.checkpoint, CheckpointFromWire(w.checkpoint()));
  }
  return job;
}

std::string EncodeDataloadPrepared(const DataloadPrepared& prepared) {
  v1::DataloadPrepared w;
  w.set_manifest(prepared.manifest);
  if (prepared.listing) *w.mutable_listing() = ListingToWire(*prepared.listing);
  return w.SerializeAsString();
}

absl::StatusOr<DataloadPrepared> DecodeDataloadPrepared(
    const std::string& bytes) {
  v1::DataloadPrepared w;
  if (!w.ParseFromString(bytes)) {
    return absl::DataLossError(
        "a dataload prepare outcome that does not parse");
  }
  if (w.manifest().size() > kMaxDatasetManifestBytes) {
    return absl::DataLossError(absl::StrCat(
        "a dataload prepare outcome with a manifest of ", w.manifest().size(),
        " bytes (at most ", kMaxDatasetManifestBytes, ")"));
  }
  DataloadPrepared p;
  p.manifest = w.manifest();
  if (w.has_listing()) p.listing = ListingFromWire(w.listing());
  return p;
}

}  // namespace ckpt
