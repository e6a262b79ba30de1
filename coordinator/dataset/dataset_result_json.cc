// The dataset workloads' parts of result.json, both ways: a datagen run's
// "dataset", a dataload round's "epoch" and dataload.find_accelerators'
// "accelerator_search".
#include "coordinator/dataset/dataset_result_json.h"

#include "coordinator/result_json_parts.h"

namespace ckpt {

using nlohmann::ordered_json;

namespace {

// null when no rank got a batch.
ordered_json FirstBatchJson(const std::optional<EpochResult::FirstBatch>& f) {
  if (!f) return nullptr;
  const FirstBatchParts& p = f->parts;
  return {{"rank", f->rank},
          {"worker", p.worker},
          {"node_start_seconds", f->node_start_seconds},
          {"worker_start_seconds", p.worker_start_seconds},
          {"connect_seconds", p.connect_seconds},
          {"reads_seconds", p.reads_seconds},
          {"handoff_seconds", p.handoff_seconds},
          {"samples_read", p.samples_read},
          {"requests", p.requests},
          {"new_connections", p.new_connections},
          {"dataset_seconds", f->dataset_seconds}};
}

void ReadFirstBatch(const Fields& k, EpochResult* e) {
  EpochResult::FirstBatch& f = e->first_batch.emplace();
  FirstBatchParts& p = f.parts;
  k.Get("rank", &f.rank);
  k.Get("worker", &p.worker);
  k.Get("node_start_seconds", &f.node_start_seconds);
  k.Get("worker_start_seconds", &p.worker_start_seconds);
  k.Get("connect_seconds", &p.connect_seconds);
  k.Get("reads_seconds", &p.reads_seconds);
  k.Get("handoff_seconds", &p.handoff_seconds);
  k.Get("samples_read", &p.samples_read);
  k.Get("requests", &p.requests);
  k.Get("new_connections", &p.new_connections);
  k.Get("dataset_seconds", &f.dataset_seconds);
}

}  // namespace

ordered_json EpochJson(const EpochResult& e) {
  ordered_json ranks = ordered_json::array();
  for (const auto& r : e.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"node", r.node},
                     {"samples", r.samples},
                     {"bytes", r.bytes},
                     {"batches", r.batches},
                     {"seconds", r.seconds},
                     {"first_batch_seconds", r.first_batch_seconds},
                     {"compute_seconds", r.compute_seconds},
                     {"wait_seconds", r.wait_seconds},
                     {"utilization", r.utilization},
                     {"order_digest", r.order_digest}});
  }
  ordered_json workers = ordered_json::array();
  for (const auto& w : e.workers) {
    workers.push_back({{"rank", w.rank},
                       {"worker", w.worker},
                       {"samples", w.samples},
                       {"batches", w.batches},
                       {"requests", w.requests},
                       {"retries", w.retries},
                       {"throttles", w.throttles},
                       {"new_connections", w.new_connections},
                       {"objects", w.objects}});
  }
  ordered_json windows = ordered_json::array();
  for (const auto& w : e.windows) {
    windows.push_back({{"steps", w.steps},
                       {"mean_seconds", w.mean_seconds},
                       {"variance", w.variance}});
  }
  ordered_json j = {{"access", e.access},
                    {"shuffle_buffer", e.shuffle_buffer},
                    {"order", e.order},
                    {"idle_workers", e.idle_workers},
                    {"warm", e.warm},
                    {"samples", e.samples},
                    {"bytes", e.bytes},
                    {"batches", e.batches},
                    {"samples_per_second", e.samples_per_second},
                    {"mib_per_second", e.mib_per_second},
                    {"first_batch_seconds", e.first_batch_seconds},
                    {"first_batch", FirstBatchJson(e.first_batch)},
                    {"compute_seconds", e.compute_seconds},
                    {"utilization", e.utilization},
                    {"dataset_samples", e.dataset_samples},
                    {"dropped", e.dropped},
                    {"padded", e.padded},
                    {"each_sample_once", e.each_sample_once},
                    {"wait", OpJson(e.wait)},
                    {"sample_first_byte", OpJson(e.sample_first_byte)},
                    {"sample_last_byte", OpJson(e.sample_last_byte)},
                    {"step_windows", windows},
                    {"ranks", ranks},
                    {"workers", workers}};
  if (!e.saves.empty()) {
    ordered_json saves = ordered_json::array();
    for (const auto& s : e.saves) {
      saves.push_back(
          {{"index", s.index},
           {"step", s.step},
           {"batch", s.batch},
           {"start_seconds", s.start_seconds},
           {"window_seconds", s.window_seconds},
           {"blocked_seconds", s.blocked_seconds},
           {"state_seconds", s.state_seconds},
           {"arrival_spread_seconds", s.arrival_spread_seconds},
           {"window_samples", s.window_samples},
           {"window_samples_per_second", s.window_samples_per_second},
           {"window_utilization", s.window_utilization}});
    }
    j["checkpoints"] = {{"saves", saves},
                        {"rest_samples_per_second", e.rest_samples_per_second},
                        {"rest_utilization", e.rest_utilization}};
  }
  return j;
}

ordered_json DatasetJson(const DatasetResult& d) {
  ordered_json j = {{"uri", d.uri},
                    {"source", d.source},
                    {"verified", d.source == DatasetSource::kCkptbench},
                    {"format", d.spec.format},
                    {"samples", d.spec.samples},
                    {"sample_bytes", d.spec.sample_bytes},
                    {"sample_spread", d.spec.sample_spread},
                    {"shard_bytes", d.spec.shard_bytes},
                    {"spread_prefixes", d.spec.spread_prefixes},
                    {"seed", d.spec.seed},
                    {"objects", d.totals.objects},
                    {"bytes", d.totals.bytes},
                    {"reused", d.reused},
                    {"removed", d.removed},
                    {"unfinished", d.unfinished},
                    {"written_objects", d.written_objects},
                    {"written_bytes", d.written_bytes},
                    {"written_samples", d.written_samples},
                    {"removed_objects", d.removed_objects},
                    {"samples_per_second", d.samples_per_second}};
  if (d.listing) {
    const DatasetResult::Listing& l = *d.listing;
    j["listing"] = {{"ignored_objects", l.ignored},
                    {"list_seconds", l.list_seconds},
                    {"list_requests", l.list_requests},
                    {"index_seconds", l.index_seconds},
                    {"index_requests", l.index_requests},
                    {"index_bytes", l.index_bytes},
                    {"overlong_objects", l.overlong_objects},
                    {"overlong_bytes", l.overlong_bytes},
                    {"overlong_first", l.overlong_first}};
  }
  return j;
}

ordered_json AcceleratorSearchJson(const AcceleratorSearchResult& a) {
  ordered_json trials = ordered_json::array();
  for (const auto& t : a.trials) {
    trials.push_back({{"ranks_per_node", t.ranks_per_node},
                      {"accelerators", t.accelerators},
                      {"round", t.round_index},
                      {"utilization", t.utilization},
                      {"samples_per_second", t.samples_per_second},
                      {"batches_per_rank", t.batches_per_rank},
                      {"client_bound", t.client_bound},
                      {"held", t.held}});
  }
  return {{"threshold", a.threshold},
          {"max_per_node", a.max_per_node},
          {"nodes", a.nodes},
          {"compute_seconds", a.compute_seconds},
          {"batch_size", a.batch_size},
          {"largest_accelerators", a.largest_accelerators},
          {"largest_per_node", a.largest_per_node},
          {"ended_by", a.ended_by},
          {"trials", trials}};
}

void ReadEpoch(const Fields& f, EpochResult* e) {
  f.Get("access", &e->access);
  f.Get("shuffle_buffer", &e->shuffle_buffer);
  f.Get("order", &e->order);
  f.Get("idle_workers", &e->idle_workers);
  f.Get("warm", &e->warm);
  f.Get("samples", &e->samples);
  f.Get("bytes", &e->bytes);
  f.Get("batches", &e->batches);
  f.Get("samples_per_second", &e->samples_per_second);
  f.Get("mib_per_second", &e->mib_per_second);
  f.Get("first_batch_seconds", &e->first_batch_seconds);
  if (f.Has("first_batch")) {
    ReadFirstBatch(f.Object("first_batch"), e);
  }
  f.Get("compute_seconds", &e->compute_seconds);
  f.Get("utilization", &e->utilization);
  f.Get("dataset_samples", &e->dataset_samples);
  f.Get("dropped", &e->dropped);
  f.Get("padded", &e->padded);
  f.Get("each_sample_once", &e->each_sample_once);
  ReadHistogram(f.Object("wait"), &e->wait);
  ReadHistogram(f.Object("sample_first_byte"), &e->sample_first_byte);
  ReadHistogram(f.Object("sample_last_byte"), &e->sample_last_byte);
  f.Each("step_windows", [&](const Fields& w) {
    EpochResult::Window& win = e->windows.emplace_back();
    w.Get("steps", &win.steps);
    w.Get("mean_seconds", &win.mean_seconds);
    w.Get("variance", &win.variance);
  });
  f.Each("ranks", [&](const Fields& k) {
    EpochResult::Rank& r = e->ranks.emplace_back();
    k.Get("rank", &r.rank);
    k.Get("node", &r.node);
    k.Get("samples", &r.samples);
    k.Get("bytes", &r.bytes);
    k.Get("batches", &r.batches);
    k.Get("seconds", &r.seconds);
    k.Get("first_batch_seconds", &r.first_batch_seconds);
    k.Get("compute_seconds", &r.compute_seconds);
    k.Get("wait_seconds", &r.wait_seconds);
    k.Get("utilization", &r.utilization);
    k.Get("order_digest", &r.order_digest);
  });
  f.Each("workers", [&](const Fields& k) {
    EpochResult::Worker& w = e->workers.emplace_back();
    k.Get("rank", &w.rank);
    k.Get("worker", &w.worker);
    k.Get("samples", &w.samples);
    k.Get("batches", &w.batches);
    k.Get("requests", &w.requests);
    k.Get("retries", &w.retries);
    k.Get("throttles", &w.throttles);
    k.Get("new_connections", &w.new_connections);
    k.Get("objects", &w.objects);
  });
  if (f.Has("checkpoints")) {
    const Fields c = f.Object("checkpoints");
    c.Get("rest_samples_per_second", &e->rest_samples_per_second);
    c.Get("rest_utilization", &e->rest_utilization);
    c.Each("saves", [&](const Fields& k) {
      EpochResult::Save& s = e->saves.emplace_back();
      k.Get("index", &s.index);
      k.Get("step", &s.step);
      k.Get("batch", &s.batch);
      k.Get("start_seconds", &s.start_seconds);
      k.Get("window_seconds", &s.window_seconds);
      k.Get("blocked_seconds", &s.blocked_seconds);
      k.Get("state_seconds", &s.state_seconds);
      k.Get("arrival_spread_seconds", &s.arrival_spread_seconds);
      k.Get("window_samples", &s.window_samples);
      k.Get("window_samples_per_second", &s.window_samples_per_second);
      k.Get("window_utilization", &s.window_utilization);
    });
  }
}

void ReadAcceleratorSearch(const Fields& f, AcceleratorSearchResult* a) {
  f.Get("threshold", &a->threshold);
  f.Get("max_per_node", &a->max_per_node);
  f.Get("nodes", &a->nodes);
  f.Get("compute_seconds", &a->compute_seconds);
  f.Get("batch_size", &a->batch_size);
  f.Get("largest_accelerators", &a->largest_accelerators);
  f.Get("largest_per_node", &a->largest_per_node);
  f.Get("ended_by", &a->ended_by);
  f.Each("trials", [&](const Fields& k) {
    AcceleratorSearchResult::Trial& t = a->trials.emplace_back();
    k.Get("ranks_per_node", &t.ranks_per_node);
    k.Get("accelerators", &t.accelerators);
    k.Get("round", &t.round_index);
    k.Get("utilization", &t.utilization);
    k.Get("samples_per_second", &t.samples_per_second);
    k.Get("batches_per_rank", &t.batches_per_rank);
    k.Get("client_bound", &t.client_bound);
    k.Get("held", &t.held);
  });
}

void ReadDataset(const Fields& f, DatasetResult* d) {
  f.Get("uri", &d->uri);
  f.Get("source", &d->source);
  f.Get("format", &d->spec.format);
  f.Get("samples", &d->spec.samples);
  f.Get("sample_bytes", &d->spec.sample_bytes);
  f.Get("sample_spread", &d->spec.sample_spread);
  f.Get("shard_bytes", &d->spec.shard_bytes);
  f.Get("spread_prefixes", &d->spec.spread_prefixes);
  f.Get("seed", &d->spec.seed);
  f.Get("objects", &d->totals.objects);
  f.Get("bytes", &d->totals.bytes);
  f.Get("reused", &d->reused);
  f.Get("removed", &d->removed);
  f.Get("unfinished", &d->unfinished);
  f.Get("written_objects", &d->written_objects);
  f.Get("written_bytes", &d->written_bytes);
  f.Get("written_samples", &d->written_samples);
  f.Get("removed_objects", &d->removed_objects);
  f.Get("samples_per_second", &d->samples_per_second);
  if (f.Has("listing")) {
    const Fields l = f.Object("listing");
    DatasetResult::Listing& listing = d->listing.emplace();
    l.Get("ignored_objects", &listing.ignored);
    l.Get("list_seconds", &listing.list_seconds);
    l.Get("list_requests", &listing.list_requests);
    l.Get("index_seconds", &listing.index_seconds);
    l.Get("index_requests", &listing.index_requests);
    l.Get("index_bytes", &listing.index_bytes);
    l.Get("overlong_objects", &listing.overlong_objects);
    l.Get("overlong_bytes", &listing.overlong_bytes);
    l.Get("overlong_first", &listing.overlong_first);
  }
}

std::string EpochResult::ToJson(const RunResult&) const {
  return SectionText(EpochJson(*this));
}

std::string DatasetResult::ToJson(const RunResult&) const {
  return SectionText(DatasetJson(*this));
}

std::string AcceleratorSearchResult::ToJson(const RunResult&) const {
  return SectionText(AcceleratorSearchJson(*this));
}

ResultSectionCodec DatasetSectionCodec() {
  return SectionCodecOf<DatasetResult>(kDatasetSection,
                                       ResultPlace::kBeforeRounds, ReadDataset);
}

ResultSectionCodec AcceleratorSearchSectionCodec() {
  return SectionCodecOf<AcceleratorSearchResult>(kAcceleratorSearchSection,
                                                 ResultPlace::kBeforeRounds,
                                                 ReadAcceleratorSearch);
}

ResultSectionCodec EpochSectionCodec() {
  return SectionCodecOf<EpochResult>(kEpochSection, ResultPlace::kRoundHead,
                                     ReadEpoch);
}

}  // namespace ckpt
