#include "wire/phase_report_codec.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "wire/error_kind.h"
#include "wire/file_record_codec.h"
#include "wire/histogram_codec.h"

namespace ckpt {
namespace {

absl::Status Refused(const std::string& what) {
  return absl::InvalidArgumentError(what);
}

absl::Status OpsFromWire(const v1::PhaseReport& r, OpStats* ops) {
  for (const auto& op : r.ops()) {
    Histogram* into = nullptr;  // the operation's, by its name on the wire
    ForEachOp(*ops, [&](const char* name, Histogram& h) {
      if (op.op() == name) into = &h;
    });
    if (into == nullptr) {
      return Refused(absl::StrCat("latency of an unknown operation '",
                                  EscapeForTerminal(op.op().substr(0, 40)),
                                  "'"));
    }
    RETURN_IF_ERROR(CheckHistogram(op.op(), op.histogram()));
    // Held as sent; one operation sent twice is added up.
    if (into->count() == 0) {
      *into = HistogramFromProto(op.histogram());
    } else {
      into->Merge(HistogramFromProto(op.histogram()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

v1::PhaseReport ToWire(const PhaseOutcome& o) {
  v1::PhaseReport rep;
  rep.set_round_id(o.round_id);
  if (!o.status.ok()) SetError(o.status, &rep);
  for (const RankOutcome& r : o.ranks) {
    auto* pr = rep.add_ranks();
    pr->set_rank(r.rank);
    pr->set_bytes(r.bytes);
    pr->set_first_byte_seconds(r.first_byte_seconds);
    pr->set_done_seconds(r.done_seconds);
    pr->set_verified(r.verified);
    pr->set_checked_bytes(r.checked_bytes);
    pr->set_checked_files(r.checked_files);
  }
  ForEachOp(o.ops, [&rep](const char* name, const Histogram& h) {
    if (h.count() == 0) return;
    auto* op = rep.add_ops();
    op->set_op(name);
    HistogramToProto(h, op->mutable_histogram());
  });
  for (const SegmentSum& c : o.checksums) {
    auto* pc = rep.add_checksums();
    pc->set_rank(c.rank);
    pc->set_file_index(c.file_index);
    pc->set_segment_index(c.segment_index);
    pc->set_checksum(c.value);
  }
  rep.mutable_cpu()->set_user_seconds(o.cpu.user_seconds);
  rep.mutable_cpu()->set_system_seconds(o.cpu.system_seconds);
  rep.mutable_cpu()->set_host_busy(o.cpu.host_busy);
  rep.set_start_lag_seconds(o.start_lag_seconds);
  rep.set_dir_sync_seconds(o.dir_sync_seconds);
  rep.set_data_seconds(o.data_seconds);
  rep.set_file_seconds(o.file_seconds);
  rep.set_cpus(static_cast<uint32_t>(o.cpus));
  rep.set_backoff_seconds(o.backoff_seconds);
  rep.set_memory_available_bytes(o.memory_available_bytes);
  rep.set_peak_rss_bytes(o.peak_rss_bytes);
  for (const FileRecord& f : o.files) ToWire(f, rep.add_files());
  rep.set_requests(o.requests);
  rep.set_retries(o.retries);
  rep.set_throttles(o.throttles);
  rep.set_new_connections(o.new_connections);
  auto* st = rep.mutable_staging();
  st->set_copy_seconds(o.staging.copy_seconds);
  st->set_copy_bytes(o.staging.copy_bytes);
  st->set_blocking_seconds(o.staging.blocking_seconds);
  st->set_durable_seconds(o.staging.durable_seconds);
  st->set_compute_seconds(o.staging.compute_seconds);
  st->set_compute_baseline_seconds(o.staging.compute_baseline_seconds);
  st->set_staged_bytes(o.staging.staged_bytes);
  st->set_pinned(o.staging.pinned);
  rep.set_workload_report(o.workload_report);
  return rep;
}

absl::StatusOr<PhaseOutcome> FromWire(const v1::PhaseReport& r) {
  PhaseOutcome o;
  RETURN_IF_ERROR(OpsFromWire(r, &o.ops));
  o.round_id = r.round_id();
  o.status = StatusOfReply(r);
  o.ranks.reserve(static_cast<size_t>(r.ranks_size()));
  for (const auto& pr : r.ranks()) {
    o.ranks.push_back({pr.rank(), pr.bytes(), pr.first_byte_seconds(),
                       pr.done_seconds(), pr.verified(), pr.checked_bytes(),
                       pr.checked_files()});
  }
  o.checksums.reserve(static_cast<size_t>(r.checksums_size()));
  for (const auto& c : r.checksums()) {
    o.checksums.push_back(
        {c.rank(), c.file_index(), c.segment_index(), c.checksum()});
  }
  o.cpu.user_seconds = r.cpu().user_seconds();
  o.cpu.system_seconds = r.cpu().system_seconds();
  o.cpu.host_busy = r.cpu().host_busy();
  o.start_lag_seconds = r.start_lag_seconds();
  o.dir_sync_seconds = r.dir_sync_seconds();
  o.data_seconds = r.data_seconds();
  o.file_seconds = r.file_seconds();
  o.cpus = static_cast<int>(r.cpus());
  o.backoff_seconds = r.backoff_seconds();
  o.memory_available_bytes = r.memory_available_bytes();
  o.peak_rss_bytes = r.peak_rss_bytes();
  o.files.reserve(static_cast<size_t>(r.files_size()));
  for (const auto& f : r.files()) o.files.push_back(FromWire(f));
  o.requests = r.requests();
  o.retries = r.retries();
  o.throttles = r.throttles();
  o.new_connections = r.new_connections();
  const auto& st = r.staging();
  o.staging.copy_seconds = st.copy_seconds();
  o.staging.copy_bytes = st.copy_bytes();
  o.staging.blocking_seconds = st.blocking_seconds();
  o.staging.durable_seconds = st.durable_seconds();
  o.staging.compute_seconds = st.compute_seconds();
  o.staging.compute_baseline_seconds = st.compute_baseline_seconds();
  o.staging.staged_bytes = st.staged_bytes();
  o.staging.pinned = st.pinned();
  o.workload_report = r.workload_report();
  return o;
}

}  // namespace ckpt
