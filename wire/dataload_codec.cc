#include "wire/dataload_codec.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dataset/dataset_options.h"
#include "common/key_recheck.h"
#include "common/status_macros.h"
#include "proto/ckptbench/v1/dataset.pb.h"
#include "wire/backend_codec.h"
#include "wire/dataset_codec.h"
#include "wire/kinds_codec.h"
#include "wire/prepare_codec.h"

namespace ckpt {
namespace {

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("dataload: ", what));
}

// The loader's settings and the block size as they arrived, through the
// key table: the configuration's bounds are the node's.
absl::Status CheckThroughKeys(const v1::DataloadJob& w) {
  const std::pair<const char*, std::string> values[] = {
      {"dataload.batch_size", absl::StrCat(w.batch_size())},
      {"dataload.num_workers", absl::StrCat(w.num_workers())},
      {"dataload.prefetch_factor", absl::StrCat(w.prefetch_factor())},
      {"dataload.shuffle_buffer", absl::StrCat(w.shuffle_buffer())},
      {"dataload.compute_time", absl::StrCat(w.compute_seconds())},
      {"dataload.preprocess_time", absl::StrCat(w.preprocess_seconds())},
      {"io.block_size", absl::StrCat(w.block_size())}};
  for (const auto& [key, value] : values) {
    RETURN_IF_ERROR(RecheckKey(key, value));
  }
  return absl::OkStatus();
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
  RETURN_IF_ERROR(CheckThroughKeys(w));  // each count fits an int now
  o.batch_size = static_cast<int>(w.batch_size());
  o.num_workers = static_cast<int>(w.num_workers());
  o.prefetch_factor = static_cast<int>(w.prefetch_factor());
  o.shuffle_buffer = static_cast<int>(w.shuffle_buffer());
  o.compute_time = w.compute_seconds();
  o.preprocess_time = w.preprocess_seconds();
  o.shuffle = w.shuffle();
  o.drop_last = w.drop_last();
  return o;
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
    w.set_listed_format(FormatToWire(job.listed_format));
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
  ASSIGN_OR_RETURN(job.backend, FromWire(w.backend()));  // checked there
  ASSIGN_OR_RETURN(job.cache_mode, FromWire(w.cache_mode(), "io.cache_mode"));
  job.listed = w.listed();
  if (job.listed) {
    const std::optional<DatasetFormat> format =
        FormatFromWire(w.listed_format());
    if (!format) {
      return Bad(absl::StrCat("a listed dataset of format ",
                              static_cast<int>(w.listed_format()),
                              ": expected files or tar"));
    }
    job.listed_format = *format;
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
  w.set_dataset_seconds(prepared.dataset_seconds);
  return w.SerializeAsString();
}

absl::StatusOr<DataloadPrepared> DecodeDataloadPrepared(
    const std::string& bytes) {
  v1::DataloadPrepared w;
  if (!w.ParseFromString(bytes)) {
    return absl::DataLossError(
        "a dataload prepare outcome that does not parse");
  }
  RETURN_IF_ERROR(
      CheckManifestOnWire(w.manifest(), "a dataload prepare outcome"));
  DataloadPrepared p;
  p.manifest = w.manifest();
  if (w.has_listing()) p.listing = ListingFromWire(w.listing());
  p.dataset_seconds = w.dataset_seconds();
  return p;
}

}  // namespace ckpt
