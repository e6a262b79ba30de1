#include "wire/dataload_report_codec.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "proto/ckptbench/v1/dataset.pb.h"
#include "wire/histogram_codec.h"
#include "wire/phase_report_codec.h"
#include "wire/round_codec.h"

namespace ckpt {
namespace {

void RankToWire(const RankEpochReport& e, v1::RankEpoch* w) {
  w->set_rank(e.rank);
  w->set_samples(e.samples);
  w->set_bytes(e.bytes);
  w->set_batches(e.batches);
  w->set_seconds(e.seconds);
  w->set_first_batch_seconds(e.first_batch_seconds);
  w->set_compute_seconds(e.compute_seconds);
  w->set_wait_seconds(e.wait_seconds);
  w->set_digest(e.digest);
  w->set_order_digest(e.order_digest);
  HistogramToProto(e.wait, w->mutable_wait());
  for (const StepWindowStats& s : e.windows) {
    v1::StepWindow* sw = w->add_windows();
    sw->set_steps(s.steps);
    sw->set_mean_seconds(s.mean_seconds);
    sw->set_variance(s.variance);
  }
  v1::FirstBatchParts* f = w->mutable_first_batch();
  f->set_worker(e.first_batch.worker);
  f->set_worker_start_seconds(e.first_batch.worker_start_seconds);
  f->set_connect_seconds(e.first_batch.connect_seconds);
  f->set_reads_seconds(e.first_batch.reads_seconds);
  f->set_handoff_seconds(e.first_batch.handoff_seconds);
  f->set_samples_read(e.first_batch.samples_read);
  f->set_requests(e.first_batch.requests);
  f->set_new_connections(e.first_batch.new_connections);
}

RankEpochReport RankFromWire(const v1::RankEpoch& w) {
  RankEpochReport e;
  e.rank = w.rank();
  e.samples = w.samples();
  e.bytes = w.bytes();
  e.batches = w.batches();
  e.seconds = w.seconds();
  e.first_batch_seconds = w.first_batch_seconds();
  e.compute_seconds = w.compute_seconds();
  e.wait_seconds = w.wait_seconds();
  e.digest = w.digest();
  e.order_digest = w.order_digest();
  e.wait = HistogramFromProto(w.wait());
  for (const v1::StepWindow& s : w.windows()) {
    e.windows.push_back({s.steps(), s.mean_seconds(), s.variance()});
  }
  const v1::FirstBatchParts& f = w.first_batch();
  e.first_batch = {f.worker(),          f.worker_start_seconds(),
                   f.connect_seconds(), f.reads_seconds(),
                   f.handoff_seconds(), f.samples_read(),
                   f.requests(),        f.new_connections()};
  return e;
}

void WorkerToWire(const WorkerReport& r, v1::WorkerStats* w) {
  w->set_rank(r.rank);
  w->set_worker(r.worker);
  w->set_samples(r.samples);
  w->set_batches(r.batches);
  w->set_requests(r.requests);
  w->set_retries(r.retries);
  w->set_throttles(r.throttles);
  w->set_new_connections(r.new_connections);
  w->set_objects(r.objects);
}

void SaveToWire(const EpochSaveStats& s, v1::EpochSaveStats* w) {
  w->set_save(s.save);
  w->set_step(s.step);
  w->set_batch(s.batch);
  w->set_start_seconds(s.start_seconds);
  w->set_end_seconds(s.end_seconds);
  w->set_blocked_seconds(s.blocked_seconds);
  w->set_state_seconds(s.state_seconds);
  w->set_window_samples(s.window_samples);
  w->set_window_compute_seconds(s.window_compute_seconds);
  w->set_arrival_spread_seconds(s.arrival_spread_seconds);
}

EpochSaveStats SaveFromWire(const v1::EpochSaveStats& w) {
  EpochSaveStats s;
  s.save = w.save();
  s.step = w.step();
  s.batch = w.batch();
  s.start_seconds = w.start_seconds();
  s.end_seconds = w.end_seconds();
  s.blocked_seconds = w.blocked_seconds();
  s.state_seconds = w.state_seconds();
  s.window_samples = w.window_samples();
  s.window_compute_seconds = w.window_compute_seconds();
  s.arrival_spread_seconds = w.arrival_spread_seconds();
  return s;
}

// Every histogram the report carries, as this build holds them.
absl::Status CheckHistograms(const v1::DataloadReport& w) {
  for (const v1::RankEpoch& e : w.ranks()) {
    RETURN_IF_ERROR(CheckHistogram("batch wait", e.wait()));
  }
  RETURN_IF_ERROR(CheckHistogram("sample first byte", w.sample_first_byte()));
  return CheckHistogram("sample last byte", w.sample_last_byte());
}

}  // namespace

std::string EncodeDataloadReport(const DataloadReport& report) {
  v1::DataloadReport w;
  for (const RankEpochReport& e : report.ranks) RankToWire(e, w.add_ranks());
  for (const WorkerReport& r : report.workers) {
    WorkerToWire(r, w.add_workers());
  }
  HistogramToProto(report.sample_first_byte, w.mutable_sample_first_byte());
  HistogramToProto(report.sample_last_byte, w.mutable_sample_last_byte());
  for (const EpochSaveStats& s : report.saves) SaveToWire(s, w.add_saves());
  w.set_checkpoint_window_seconds(report.checkpoint_window_seconds);
  w.set_checkpoint_window_samples(report.checkpoint_window_samples);
  w.set_checkpoint_window_compute_seconds(
      report.checkpoint_window_compute_seconds);
  w.set_order(report.order);
  return w.SerializeAsString();
}

absl::StatusOr<DataloadReport> DecodeDataloadReport(const std::string& bytes) {
  v1::DataloadReport w;
  if (!w.ParseFromString(bytes)) {
    return absl::DataLossError("a dataload report that does not parse");
  }
  if (absl::Status s = CheckHistograms(w); !s.ok()) {
    return absl::DataLossError(
        absl::StrCat("a dataload report whose ", s.message()));
  }
  DataloadReport r;
  r.ranks.reserve(w.ranks_size());
  for (const v1::RankEpoch& e : w.ranks()) r.ranks.push_back(RankFromWire(e));
  r.workers.reserve(w.workers_size());
  for (const v1::WorkerStats& x : w.workers()) {
    r.workers.push_back({x.rank(), x.worker(), x.samples(), x.batches(),
                         x.requests(), x.retries(), x.throttles(),
                         x.new_connections(), x.objects()});
  }
  r.sample_first_byte = HistogramFromProto(w.sample_first_byte());
  r.sample_last_byte = HistogramFromProto(w.sample_last_byte());
  for (const v1::EpochSaveStats& s : w.saves()) {
    r.saves.push_back(SaveFromWire(s));
  }
  r.checkpoint_window_seconds = w.checkpoint_window_seconds();
  r.checkpoint_window_samples = w.checkpoint_window_samples();
  r.checkpoint_window_compute_seconds = w.checkpoint_window_compute_seconds();
  r.order = w.order();
  return r;
}

std::string EncodeEpochSaveAsk(const EpochSaveAsk& ask) {
  v1::EpochSaveAsk w;
  w.set_save(ask.save);
  w.set_saved(ask.saved);
  w.set_finished(ask.finished);
  if (ask.saved) {
    *w.mutable_report() = ToWire(ask.report);
    if (ask.prepared.has_value()) *w.mutable_prepared() = ToWire(*ask.prepared);
  }
  return w.SerializeAsString();
}

absl::StatusOr<EpochSaveAsk> DecodeEpochSaveAsk(const std::string& bytes) {
  v1::EpochSaveAsk w;
  if (!w.ParseFromString(bytes) || w.save() == 0) {
    return absl::InvalidArgumentError(
        "an ask about a save that does not parse");
  }
  EpochSaveAsk ask;
  ask.save = w.save();
  ask.saved = w.saved();
  ask.finished = w.finished();
  if (!ask.saved) return ask;
  auto report = FromWire(w.report());
  if (report.ok()) {
    ask.report = *std::move(report);
  } else {
    ask.unheld = absl::DataLossError(absl::StrCat(
        "a save report that cannot be held: ", report.status().message()));
  }
  if (w.has_prepared()) {
    auto prepared = FromWire(w.prepared());
    if (prepared.ok()) {
      ask.prepared = *std::move(prepared);
    } else if (ask.unheld.ok()) {
      ask.unheld = absl::DataLossError(
          absl::StrCat("a save's prepare outcome that cannot be held: ",
                       prepared.status().message()));
    }
  }
  return ask;
}

std::string EncodeEpochSaveAnswer(const EpochSaveAnswer& answer) {
  v1::EpochSaveAnswer w;
  w.set_step(answer.step);
  w.set_step_uri(answer.step_uri);
  w.set_next_step(answer.next_step);
  w.set_next_step_uri(answer.next_step_uri);
  w.set_skip(answer.skip);
  return w.SerializeAsString();
}

absl::StatusOr<EpochSaveAnswer> DecodeEpochSaveAnswer(
    const std::string& bytes) {
  v1::EpochSaveAnswer w;
  if (!w.ParseFromString(bytes)) {
    return absl::InternalError(
        "dataload: the coordinator's answer to a save does not parse");
  }
  return EpochSaveAnswer{w.step(), w.step_uri(), w.next_step(),
                         w.next_step_uri(), w.skip()};
}

}  // namespace ckpt
