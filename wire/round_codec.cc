#include "wire/round_codec.h"

#include <utility>

#include "common/status_macros.h"
#include "wire/error_kind.h"
#include "wire/kinds_codec.h"

namespace ckpt {

v1::PrepareReply ToWire(const PrepareOutcome& o) {
  v1::PrepareReply rep;
  // A workload that opened no storage says neither its kind nor a cache
  // method (FromWire below).
  if (o.storage_kind) {
    rep.set_storage_kind(ToWire(*o.storage_kind));
    rep.set_cache_method(ToWire(o.cache.method));
  }
  rep.set_filesystem(o.filesystem.type);
  rep.set_mount_point(o.filesystem.mount_point);
  rep.set_mount_options(o.filesystem.options);
  rep.set_resident_bytes(o.cache.resident_bytes);
  rep.set_checked_bytes(o.cache.checked_bytes);
  rep.set_cache_note(o.cache.note);
  rep.set_cache_probe(o.cache.probe);
  rep.set_workload_outcome(o.workload_outcome);
  return rep;
}

absl::StatusOr<PrepareOutcome> FromWire(const v1::PrepareReply& r) {
  PrepareOutcome o;
  if (r.storage_kind() != v1::STORAGE_KIND_UNSPECIFIED) {
    ASSIGN_OR_RETURN(o.storage_kind,
                     FromWire(r.storage_kind(), "storage_kind"));
  }
  o.filesystem.type = r.filesystem();
  o.filesystem.mount_point = r.mount_point();
  o.filesystem.options = r.mount_options();
  // A node that opened storage says how it kept reads cold (a save's:
  // none); a workload's that opened none says neither.
  if (o.storage_kind || r.cache_method() != v1::CACHE_METHOD_UNSPECIFIED) {
    ASSIGN_OR_RETURN(o.cache.method,
                     FromWire(r.cache_method(), "cache_method"));
  }
  o.cache.resident_bytes = r.resident_bytes();
  o.cache.checked_bytes = r.checked_bytes();
  o.cache.note = r.cache_note();
  o.cache.probe = r.cache_probe();
  o.workload_outcome = r.workload_outcome();
  return o;
}

v1::StartPhaseRequest ToWire(const PhaseStart& s) {
  v1::StartPhaseRequest r;
  r.set_run_id(s.run_id);
  r.set_round_id(s.round_id);
  r.set_start_at_unix_ns(s.start_at_unix_ns);
  r.set_progress_interval_seconds(s.progress_interval_seconds);
  return r;
}

PhaseStart FromWire(const v1::StartPhaseRequest& r) {
  return {r.run_id(), r.round_id(), r.start_at_unix_ns(),
          r.progress_interval_seconds()};
}

v1::Progress ToWire(const PhaseProgress& p) {
  v1::Progress w;
  w.set_round_id(p.round_id);
  for (const RankProgress& r : p.ranks) {
    auto* wr = w.add_ranks();
    wr->set_rank(r.rank);
    wr->set_bytes_done(r.bytes_done);
    wr->set_bytes_total(r.bytes_total);
  }
  return w;
}

PhaseProgress FromWire(const v1::Progress& w) {
  PhaseProgress p;
  p.round_id = w.round_id();
  p.ranks.reserve(static_cast<size_t>(w.ranks_size()));
  for (const auto& r : w.ranks()) {
    p.ranks.push_back({r.rank(), r.bytes_done(), r.bytes_total()});
  }
  return p;
}

v1::ActionRequest ToWire(const ActionAsk& a) {
  v1::ActionRequest w;
  w.set_round_id(a.round_id);
  w.set_action_id(a.action_id);
  w.set_payload(a.payload);
  return w;
}

ActionAsk FromWire(const v1::ActionRequest& w) {
  return {w.round_id(), w.action_id(), w.payload()};
}

v1::ActionReply ToWire(const ActionAnswer& a) {
  v1::ActionReply w;
  w.set_round_id(a.round_id);
  w.set_action_id(a.action_id);
  if (!a.status.ok()) SetError(a.status, &w);
  w.set_payload(a.payload);
  return w;
}

ActionAnswer FromWire(const v1::ActionReply& w) {
  ActionAnswer a;
  a.round_id = w.round_id();
  a.action_id = w.action_id();
  if (!w.error().empty()) {
    a.status = StatusOfKind(FromWire(w.error_kind()), w.error());
  }
  a.payload = w.payload();
  return a;
}

}  // namespace ckpt
