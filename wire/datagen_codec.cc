#include "wire/datagen_codec.h"

#include "absl/strings/str_cat.h"
#include "common/key_recheck.h"
#include "common/status_macros.h"
#include "proto/ckptbench/v1/dataset.pb.h"
#include "wire/backend_codec.h"
#include "wire/dataset_codec.h"

namespace ckpt {

std::string EncodeDatagenJob(const DatagenJob& job) {
  v1::DatagenJob w;
  if (!job.remove) *w.mutable_spec() = ToWire(job.spec);
  w.set_dataset_uri(job.dataset_uri);
  w.set_share_index(job.share_index);
  w.set_share_count(job.share_count);
  w.set_write_threads(job.write_threads);
  w.set_block_size(job.block_size);
  w.set_fsync(job.fsync);
  *w.mutable_backend() = ToWire(job.backend);
  w.set_remove(job.remove);
  w.set_manifest_owner(job.manifest_owner);
  for (const std::string& r : job.take_over) w.add_take_over(r);
  return w.SerializeAsString();
}

absl::StatusOr<DatagenJob> DecodeDatagenJob(const std::string& bytes) {
  v1::DatagenJob w;
  if (!w.ParseFromString(bytes)) {
    return absl::InvalidArgumentError("datagen: a job that does not parse");
  }
  DatagenJob job;
  job.remove = w.remove();
  if (!job.remove) {
    ASSIGN_OR_RETURN(job.spec, FromWire(w.spec()));
  }
  job.dataset_uri = w.dataset_uri();
  job.share_index = w.share_index();
  job.share_count = w.share_count();
  if (job.share_count == 0 || job.share_index >= job.share_count) {
    return absl::InvalidArgumentError(
        absl::StrCat("datagen: share ", job.share_index, " of ",
                     job.share_count, " is not a share"));
  }
  job.write_threads = w.write_threads();
  job.block_size = w.block_size();
  // Through the key table: the configuration's bounds are the node's.
  RETURN_IF_ERROR(
      RecheckKey("dataset.write_threads", absl::StrCat(job.write_threads)));
  RETURN_IF_ERROR(RecheckKey("io.block_size", absl::StrCat(job.block_size)));
  job.fsync = w.fsync();
  ASSIGN_OR_RETURN(job.backend, FromWire(w.backend()));  // checked there
  job.manifest_owner = w.manifest_owner();
  job.take_over.assign(w.take_over().begin(), w.take_over().end());
  return job;
}

std::string EncodeDatagenPrepared(const DatagenPrepared& prepared) {
  v1::DatagenPrepared w;
  w.set_manifest_found(prepared.manifest_found);
  w.set_manifest(prepared.manifest);
  w.set_reuse(prepared.reuse);
  w.set_unfinished(prepared.unfinished);
  return w.SerializeAsString();
}

absl::StatusOr<DatagenPrepared> DecodeDatagenPrepared(
    const std::string& bytes) {
  v1::DatagenPrepared w;
  if (!w.ParseFromString(bytes)) {
    return absl::DataLossError("a datagen prepare outcome that does not parse");
  }
  RETURN_IF_ERROR(
      CheckManifestOnWire(w.manifest(), "a datagen prepare outcome"));
  DatagenPrepared p;
  p.manifest_found = w.manifest_found();
  p.manifest = w.manifest();
  p.reuse = w.reuse();
  p.unfinished = w.unfinished();
  return p;
}

std::string EncodeDatagenReport(const DatagenReport& report) {
  v1::DatagenReport w;
  w.set_objects(report.objects);
  w.set_bytes(report.bytes);
  w.set_samples(report.samples);
  return w.SerializeAsString();
}

absl::StatusOr<DatagenReport> DecodeDatagenReport(const std::string& bytes) {
  v1::DatagenReport w;
  if (!w.ParseFromString(bytes)) {
    return absl::DataLossError("a datagen report that does not parse");
  }
  return DatagenReport{w.objects(), w.bytes(), w.samples()};
}

}  // namespace ckpt
