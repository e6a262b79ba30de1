// The serve workload's sections of result.json, both ways.
#include "coordinator/result_fields.h"
#include "coordinator/serving/serve_results.h"

namespace ckpt {
namespace {

using result_json::json;

void ReadServingModel(const Fields& f, ServingModelResult* m) {
  f.Get("uri", &m->uri);
  f.Get("source", &m->source);
  f.Get("preset", &m->preset);
  f.Get("dtype", &m->dtype);
  f.Get("file_bytes", &m->file_bytes);
  f.Get("seed", &m->seed);
  f.Get("files", &m->files);
  f.Get("tensors", &m->tensors);
  f.Get("bytes", &m->bytes);
  f.Get("reused", &m->reused);
  f.Get("removed", &m->removed);
  f.Get("written_files", &m->written_files);
  f.Get("written_bytes", &m->written_bytes);
  f.Get("written_seconds", &m->written_seconds);
}

void ReadFleet(const Fields& f, ReplicaLoadResult::Fleet* fleet) {
  f.Get("loaded_p50_seconds", &fleet->loaded_p50_seconds);
  f.Get("loaded_p90_seconds", &fleet->loaded_p90_seconds);
  f.Get("loaded_max_seconds", &fleet->loaded_max_seconds);
  f.Get("first_start_seconds", &fleet->first_start_seconds);
  f.Get("all_loaded_seconds", &fleet->all_loaded_seconds);
  f.Each("slowest", [fleet](const Fields& e) {
    ReplicaLoadResult::Fleet::Slow s;
    e.Get("node", &s.node);
    e.Get("loaded_seconds", &s.loaded_seconds);
    e.Get("why", &s.why);
    fleet->slowest.push_back(std::move(s));
  });
}

void ReadReplicaLoad(const Fields& f, ReplicaLoadResult* r) {
  f.Get("read_mode", &r->read_mode);
  f.Get("split", &r->split);
  f.Get("ranks", &r->ranks);
  f.Get("concurrency", &r->concurrency);
  f.Get("chunk_bytes", &r->chunk_bytes);
  f.Get("hold", &r->hold);
  f.Get("gpu", &r->on_gpu);
  f.Get("model_bytes", &r->model_bytes);
  f.Get("read_bytes", &r->read_bytes);
  f.Get("verified", &r->verified);
  f.Each("replicas", [r](const Fields& e) {
    ReplicaLoadResult::Replica p;
    e.Get("node", &p.node);
    e.Get("start_seconds", &p.start_seconds);
    e.Get("loaded_seconds", &p.loaded_seconds);
    e.Get("headers_seconds", &p.headers_seconds);
    e.Get("first_byte_seconds", &p.first_byte_seconds);
    e.Get("load_seconds", &p.load_seconds);
    e.Get("header_reads", &p.header_reads);
    e.Get("bytes", &p.bytes);
    e.Get("requests", &p.requests);
    e.Get("retries", &p.retries);
    e.Get("throttles", &p.throttles);
    e.Get("host", &p.host);
    e.Get("page_cache_bytes", &p.cached_bytes);
    e.Get("page_cache_at_start_bytes", &p.cached_at_start_bytes);
    e.Get("download_page_cache_bytes", &p.download_cached_bytes);
    e.Get("mib_per_second", &p.mib_per_second);
    e.Get("download_seconds", &p.download_seconds);
    e.Get("download_bytes", &p.download_bytes);
    e.Get("download_requests", &p.download_requests);
    e.Each("objects", [&p](const Fields& o) {
      ReplicaLoadResult::Replica::Object x;
      o.Get("name", &x.name);
      o.Get("requests", &x.requests);
      o.Get("retries", &x.retries);
      o.Get("throttles", &x.throttles);
      p.objects.push_back(std::move(x));
    });
    r->replicas.push_back(p);
  });
  f.Each("objects", [r](const Fields& o) {
    ReplicaLoadResult::HotObject h;
    o.Get("name", &h.name);
    o.Get("replicas", &h.replicas);
    o.Get("throttled_replicas", &h.throttled_replicas);
    o.Get("requests", &h.requests);
    o.Get("retries", &h.retries);
    o.Get("throttles", &h.throttles);
    r->objects.push_back(std::move(h));
  });
  f.Each("ranks_loaded", [r](const Fields& e) {
    ReplicaLoadResult::Rank k;
    e.Get("node", &k.node);
    e.Get("rank", &k.rank);
    e.Get("bytes", &k.bytes);
    e.Get("requests", &k.requests);
    e.Get("retries", &k.retries);
    e.Get("throttles", &k.throttles);
    e.Get("page_cache_bytes", &k.cached_bytes);
    e.Get("first_byte_seconds", &k.first_byte_seconds);
    e.Get("last_byte_seconds", &k.last_byte_seconds);
    r->rank_loads.push_back(k);
  });
  ReadFleet(f.Object("fleet"), &r->fleet);
}

}  // namespace

std::string ServingModelResult::ToJson(const RunResult&) const {
  json j;
  j["uri"] = uri;
  j["source"] = source;
  if (source == DatasetSource::kCkptbench) {
    j["preset"] = preset;
    j["dtype"] = dtype;
    j["file_bytes"] = file_bytes;
    j["seed"] = seed;
  }
  j["files"] = files;
  j["tensors"] = tensors;
  j["bytes"] = bytes;
  j["reused"] = reused;
  j["removed"] = removed;
  j["written_files"] = written_files;
  j["written_bytes"] = written_bytes;
  j["written_seconds"] = written_seconds;
  return SectionText(std::move(j));
}

namespace {

using Replica = ReplicaLoadResult::Replica;

json ReplicaJson(const Replica& p, ServeReadMode read_mode) {
  json e = {{"node", p.node},
            {"host", p.host},
            {"start_seconds", p.start_seconds},
            {"loaded_seconds", p.loaded_seconds},
            {"headers_seconds", p.headers_seconds},
            {"first_byte_seconds", p.first_byte_seconds},
            {"load_seconds", p.load_seconds},
            {"header_reads", p.header_reads},
            {"bytes", p.bytes},
            {"requests", p.requests},
            {"retries", p.retries},
            {"throttles", p.throttles},
            {"page_cache_bytes", p.cached_bytes},
            {"page_cache_at_start_bytes", p.cached_at_start_bytes},
            {"mib_per_second", p.mib_per_second}};
  if (read_mode == ServeReadMode::kDownload) {
    e["download_seconds"] = p.download_seconds;
    e["download_bytes"] = p.download_bytes;
    e["download_requests"] = p.download_requests;
    e["download_page_cache_bytes"] = p.download_cached_bytes;
  }
  if (!p.objects.empty()) {
    json objects = json::array();
    for (const Replica::Object& o : p.objects) {
      objects.push_back({{"name", o.name},
                         {"requests", o.requests},
                         {"retries", o.retries},
                         {"throttles", o.throttles}});
    }
    e["objects"] = std::move(objects);
  }
  return e;
}

json HotObjectsJson(const std::vector<ReplicaLoadResult::HotObject>& objects) {
  json hot = json::array();
  for (const ReplicaLoadResult::HotObject& h : objects) {
    hot.push_back({{"name", h.name},
                   {"replicas", h.replicas},
                   {"throttled_replicas", h.throttled_replicas},
                   {"requests", h.requests},
                   {"retries", h.retries},
                   {"throttles", h.throttles}});
  }
  return hot;
}

json FleetJson(const ReplicaLoadResult::Fleet& fleet) {
  json slowest = json::array();
  for (const ReplicaLoadResult::Fleet::Slow& s : fleet.slowest) {
    slowest.push_back({{"node", s.node},
                       {"loaded_seconds", s.loaded_seconds},
                       {"why", s.why}});
  }
  return {{"loaded_p50_seconds", fleet.loaded_p50_seconds},
          {"loaded_p90_seconds", fleet.loaded_p90_seconds},
          {"loaded_max_seconds", fleet.loaded_max_seconds},
          {"first_start_seconds", fleet.first_start_seconds},
          {"all_loaded_seconds", fleet.all_loaded_seconds},
          {"slowest", std::move(slowest)}};
}

}  // namespace

std::string ReplicaLoadResult::ToJson(const RunResult&) const {
  json j;
  j["read_mode"] = read_mode;
  j["split"] = split;
  j["ranks"] = ranks;
  j["concurrency"] = concurrency;
  j["chunk_bytes"] = chunk_bytes;
  j["hold"] = hold;
  j["gpu"] = on_gpu;
  j["model_bytes"] = model_bytes;
  j["read_bytes"] = read_bytes;
  j["verified"] = verified;
  json replicas = json::array();
  for (const Replica& p : this->replicas) {
    replicas.push_back(ReplicaJson(p, read_mode));
  }
  j["replicas"] = std::move(replicas);
  json ranks_loaded = json::array();
  for (const Rank& k : rank_loads) {
    ranks_loaded.push_back({{"node", k.node},
                            {"rank", k.rank},
                            {"bytes", k.bytes},
                            {"requests", k.requests},
                            {"retries", k.retries},
                            {"throttles", k.throttles},
                            {"page_cache_bytes", k.cached_bytes},
                            {"first_byte_seconds", k.first_byte_seconds},
                            {"last_byte_seconds", k.last_byte_seconds}});
  }
  j["ranks_loaded"] = std::move(ranks_loaded);
  if (!objects.empty()) j["objects"] = HotObjectsJson(objects);
  j["fleet"] = FleetJson(fleet);
  return SectionText(std::move(j));
}

ResultSectionCodec ServingModelSectionCodec() {
  return SectionCodecOf<ServingModelResult>(
      kServingModelSection, ResultPlace::kBeforeRounds, ReadServingModel);
}

ResultSectionCodec ReplicaLoadSectionCodec() {
  return SectionCodecOf<ReplicaLoadResult>(
      kReplicaLoadSection, ResultPlace::kRoundHead, ReadReplicaLoad);
}

}  // namespace ckpt
