#include "wire/inspect_codec.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dataset/dataset_manifest.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "wire/backend_codec.h"
#include "wire/kinds_codec.h"

namespace ckpt {

v1::InspectRequest ToWire(const InspectJob& job) {
  v1::InspectRequest w;
  w.set_run_id(job.run_id);
  w.set_steps_uri(job.steps_uri);
  w.set_dataset_uri(job.dataset_uri);
  w.set_probe_write(job.probe_write);
  w.set_want_metadata(job.want_metadata);
  w.set_metadata_step(job.metadata_step);
  *w.mutable_backend() = ToWire(job.backend);
  w.set_accelerator(ToWire(job.accelerator));
  w.set_open_only(job.open_only);
  if (job.visible.step > 0) {  // time to visible: only then
    w.set_visible_step(job.visible.step);
    w.set_visible_metadata_size(job.visible.metadata_size);
    w.set_visible_metadata_xxh3(job.visible.metadata_xxh3);
    w.set_visible_shard(job.visible.shard);
    w.set_visible_shard_size(job.visible.shard_size);
    w.set_visible_timeout_seconds(job.visible.timeout_seconds);
  }
  return w;
}

absl::StatusOr<InspectJob> FromWire(const v1::InspectRequest& w) {
  InspectJob job;
  job.run_id = w.run_id();
  job.steps_uri = w.steps_uri();
  job.dataset_uri = w.dataset_uri();
  job.probe_write = w.probe_write();
  job.want_metadata = w.want_metadata();
  job.metadata_step = w.metadata_step();
  ASSIGN_OR_RETURN(job.backend, FromWire(w.backend()));
  ASSIGN_OR_RETURN(job.accelerator, FromWire(w.accelerator(), "accelerator"));
  job.visible.step = w.visible_step();
  job.visible.metadata_size = w.visible_metadata_size();
  job.visible.metadata_xxh3 = w.visible_metadata_xxh3();
  job.visible.shard = w.visible_shard();
  job.visible.shard_size = w.visible_shard_size();
  job.visible.timeout_seconds = w.visible_timeout_seconds();
  job.open_only = w.open_only();
  return job;
}

v1::InspectReply ToWire(Inspection in) {
  v1::InspectReply w;
  StepListing& l = in.listing;
  for (const auto& [step, committed] : l.steps) {
    v1::StepInfo* s = w.add_steps();
    s->set_step(step);
    s->set_committed(committed);
  }
  w.set_newest_committed(l.newest_committed);
  w.set_metadata_step(l.metadata_step);
  w.set_newest_metadata(std::move(l.newest_metadata));
  for (auto& name : l.ignored) w.add_ignored_steps(std::move(name));
  w.set_gpus(std::move(in.gpus));
  const VisibleOutcome& v = in.visible;
  w.set_visible(v.visible);
  w.set_visible_at_unix_ns(v.at_unix_ns);
  w.set_visible_poll_seconds(v.poll_seconds);
  w.set_visible_polls(v.polls);
  w.set_visible_lacked(v.lacked);
  w.set_visible_last_poll_seconds(v.last_poll_seconds);
  DatasetLook& d = in.dataset;
  v1::DatasetLook& dw = *w.mutable_dataset();
  dw.set_manifest_found(d.manifest_found);
  dw.set_manifest(std::move(d.manifest));
  dw.set_free_known(d.free_known);
  dw.set_free_bytes(d.free_bytes);
  dw.set_filesystem(std::move(d.filesystem));
  dw.set_memory_bytes(d.memory_bytes);
  dw.set_memory_source(std::move(d.memory_source));
  return w;
}

namespace {

absl::Status CheckListing(const v1::InspectReply& reply) {
  auto bad = [](const std::string& what) {
    return absl::DataLossError(absl::StrCat(
        "a listing the coordinator cannot use: ", what,
        "; steps run from 1 to ", kMaxStep,
        " (a ckptbench node of another version, or another program on the "
        "control port?)"));
  };
  for (const auto& st : reply.steps()) {
    if (st.step() == 0 || st.step() > kMaxStep) {
      return bad(absl::StrCat("step ", st.step()));
    }
  }
  if (reply.newest_committed() > kMaxStep) {
    return bad(
        absl::StrCat("newest committed step ", reply.newest_committed()));
  }
  if (reply.metadata_step() > kMaxStep) {
    return bad(absl::StrCat(".metadata of step ", reply.metadata_step()));
  }
  if (reply.dataset().manifest().size() > kMaxDatasetManifestBytes ||
      reply.dataset().filesystem().size() > 4096 ||
      reply.dataset().memory_source().size() > 256) {
    return absl::DataLossError(absl::StrCat(
        "a dataset's look the coordinator cannot use: a manifest of ",
        reply.dataset().manifest().size(), " bytes (at most ",
        kMaxDatasetManifestBytes,
        "), or a file system or memory source named at length"));
  }
  if (reply.newest_metadata().size() > kMaxMetadataBytes) {
    return bad(absl::StrCat("a .metadata of ", reply.newest_metadata().size(),
                            " bytes"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Inspection> FromWire(v1::InspectReply w) {
  RETURN_IF_ERROR(CheckListing(w));
  Inspection in;
  StepListing& l = in.listing;
  l.steps.reserve(static_cast<size_t>(w.steps_size()));
  for (const v1::StepInfo& s : w.steps()) {
    l.steps.emplace_back(s.step(), s.committed());
  }
  l.newest_committed = w.newest_committed();
  l.metadata_step = w.metadata_step();
  l.newest_metadata = std::move(*w.mutable_newest_metadata());
  for (auto& name : *w.mutable_ignored_steps()) {
    l.ignored.push_back(std::move(name));
  }
  in.gpus = std::move(*w.mutable_gpus());
  VisibleOutcome& v = in.visible;
  v.visible = w.visible();
  v.at_unix_ns = w.visible_at_unix_ns();
  v.poll_seconds = w.visible_poll_seconds();
  v.polls = w.visible_polls();
  v.lacked = std::move(*w.mutable_visible_lacked());
  v.last_poll_seconds = w.visible_last_poll_seconds();
  v1::DatasetLook& dw = *w.mutable_dataset();
  DatasetLook& d = in.dataset;
  d.manifest_found = dw.manifest_found();
  d.manifest = std::move(*dw.mutable_manifest());
  d.free_known = dw.free_known();
  d.free_bytes = dw.free_bytes();
  d.filesystem = std::move(*dw.mutable_filesystem());
  d.memory_bytes = dw.memory_bytes();
  d.memory_source = std::move(*dw.mutable_memory_source());
  return in;
}

}  // namespace ckpt
