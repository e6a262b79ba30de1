#include "coordinator/json_codec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/checksum.h"
#include "common/json_utf8.h"
#include "common/log.h"
#include "common/secrets.h"
#include "coordinator/result_foreign.h"
#include "coordinator/result_json_parts.h"
#include "coordinator/workload_registry.h"

namespace ckpt {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// A load's coverage, page cache and reshard figures.
void AddLoadParts(const RoundResult& r, ordered_json* j) {
  (*j)["rank_shift"] = r.rank_shift;
  (*j)["resharded"] = r.resharded;
  if (r.resharded) {
    (*j)["read_amplification"] = r.read_amplification;
    (*j)["bytes_read"] = r.bytes_read;
  }
  (*j)["verified"] = r.verified;
  (*j)["coverage"] = {{"files_checked", r.checked_files},
                      {"files_planned", r.planned_files},
                      {"bytes_checked", r.checked_bytes},
                      {"bytes_planned", r.planned_bytes}};
  (*j)["page_cache"] = {{"method", r.cache.method},
                        {"resident_bytes_at_start", r.cache.resident_bytes},
                        {"checked_bytes", r.cache.checked_bytes},
                        {"note", r.cache.note},
                        {"probe", r.cache.probe}};
}

ordered_json NodeJson(const NodeResult& n, bool load) {
  ordered_json j = {
      {"node_index", n.node},
      {"ranks", n.ranks},
      {"host", n.host},
      {"bytes", n.bytes},
      {"seconds", n.seconds},
      {"throughput_mib_s", n.throughput_mib_s},
      {"first_done_seconds", n.first_done_seconds},
      {"last_done_seconds", n.last_done_seconds},
      {"dir_sync_seconds", n.dir_sync_seconds},
      {"start_lag_seconds", n.start_lag_seconds},
      {"cpu_user_seconds", n.cpu_user_seconds},
      {"cpu_system_seconds", n.cpu_system_seconds},
      {"host_cpu_busy", n.host_cpu_busy},
      {"data_busy", n.data_busy},
      {"cpu_busy", n.cpu_busy},
      {"cpus", n.cpus},
      {"filesystem", n.filesystem},
      {"mount_point", n.mount_point},
      {"mount_options", n.mount_options},
      {"requests", n.requests},
      {"retries", n.retries},
      {"throttles", n.throttles},
      {"backoff_seconds", n.backoff_seconds},
      {"memory_available_bytes", n.memory_available_bytes},
      {"peak_rss_bytes", n.peak_rss_bytes},
      {"new_connections", n.new_connections},
      {"staging",
       {{"copy_seconds", n.staging.copy_seconds},
        {"copy_bytes", n.staging.copy_bytes},
        {"blocking_seconds", n.staging.blocking_seconds},
        {"durable_seconds", n.staging.durable_seconds},
        {"compute_seconds", n.staging.compute_seconds},
        {"compute_baseline_seconds", n.staging.compute_baseline_seconds},
        {"staged_bytes", n.staging.staged_bytes}}}};
  if (load) j["read_from_nodes"] = n.read_from_nodes;
  return j;
}

ordered_json RankJson(const RankResult& k, bool load) {
  ordered_json j = {{"rank", k.rank},
                    {"node", k.node},
                    {"bytes", k.bytes},
                    {"first_byte_seconds", k.first_byte_seconds},
                    {"seconds", k.seconds},
                    {"verified", k.verified},
                    {"data_seconds", k.data_seconds},
                    {"io_seconds", k.io_seconds},
                    {"sync_seconds", k.sync_seconds},
                    {"wait_seconds", k.wait_seconds},
                    {"requests", k.requests},
                    {"retries", k.retries}};
  if (load) {
    j["read_rank"] = k.read_rank;
    j["read_from_node"] = k.read_from_node;
  }
  return j;
}

// Per file, compactly: one row each, columns named once; microseconds.
ordered_json FilesJson(const std::vector<FileRecord>& files) {
  ordered_json rows = ordered_json::array();
  auto us = [](double s) { return std::round(s * 1e6) / 1e6; };
  for (const auto& f : files) {
    rows.push_back({f.node, f.rank, f.file_index, f.name, f.bytes, us(f.start),
                    us(f.first_byte), us(f.last_byte), us(f.done), us(f.data),
                    us(f.io), us(f.sync), f.requests, f.retries});
  }
  return {{"columns",
           {"node", "rank", "file", "name", "bytes", "start", "first_byte",
            "last_byte", "done", "data_seconds", "io_seconds", "sync_seconds",
            "requests", "retries"}},
          {"rows", rows}};
}

ordered_json StagingJson(const RoundStaging& st) {
  return {{"accelerator", st.accelerator},
          {"async", st.async},
          {"copy_bytes", st.copy_bytes},
          {"copy_seconds", st.copy_seconds},
          {"copy_gib_s", st.copy_gib_s},
          {"staging_gib_s", st.staging_gib_s},
          {"pinned", st.pinned},
          {"blocking_seconds", st.blocking_seconds},
          {"persist_seconds", st.persist_seconds},
          {"compute_seconds", st.compute_seconds},
          {"compute_baseline_seconds", st.compute_baseline_seconds},
          {"compute_slowdown", st.compute_slowdown},
          {"slowdown_seconds", st.slowdown_seconds},
          {"fell_behind", st.fell_behind},
          {"checkpoint_cost_seconds", st.checkpoint_cost_seconds},
          {"staged_bytes", st.staged_bytes}};
}

// A workload's section under `member`, as its own type writes it within
// `run`; "" leaves it out. Text that is not one object (its bug) would make
// the file unreadable: left out, and said so.
void AddResultSection(const std::string& member, const ResultSection* section,
                      const RunResult& run, ordered_json* j) {
  if (section == nullptr) return;
  const std::string text = section->ToJson(run);
  if (text.empty()) return;
  ordered_json s = ordered_json::parse(text, nullptr, false);
  if (s.is_object()) {
    (*j)[member] = std::move(s);
  } else {
    LOG_ERROR("result.json: the section '%s' is not a JSON object; left out",
              member);
  }
}

// The sections `registry` places at `place` that `sections` (the run's or
// a round's of `run`) holds, in registration order, each added to `placed`.
void PlaceSections(const ResultSections& sections,
                   const WorkloadRegistry& registry, const RunResult& run,
                   ResultPlace place, ordered_json* j,
                   std::set<std::string_view>* placed) {
  registry.ForEachSection(place, [&](const ResultSectionCodec& codec) {
    auto it = sections.find(codec.member);
    if (it == sections.end()) return;
    AddResultSection(it->first, it->second.get(), run, j);
    placed->insert(it->first);
  });
}

// The sections not in `placed`, by member.
void AddOtherSections(const ResultSections& sections,
                      const std::set<std::string_view>& placed,
                      const RunResult& run, ordered_json* j) {
  for (const auto& [member, section] : sections) {
    if (!placed.contains(member)) {
      AddResultSection(member, section.get(), run, j);
    }
  }
}

// Round `r` of `run`.
ordered_json RoundJson(const RoundResult& r, const RunResult& run,
                       const WorkloadRegistry& registry) {
  const bool load = r.phase == Phase::kLoad;
  ordered_json j;
  if (WorkloadRegistry::NamedInResult(r.workload)) {
    j["workload"] = r.workload;
  }
  // What the round was (a dataload's epoch): its sections at its head.
  std::set<std::string_view> placed;
  PlaceSections(r.sections, registry, run, ResultPlace::kRoundHead, &j,
                &placed);
  j["phase"] = r.phase;
  j["index"] = r.index;
  j["staged"] = r.staged;
  j["step"] = r.step;
  j["status"] = r.status;
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.error_kind.empty()) j["error_kind"] = r.error_kind;
  j["seconds"] = r.seconds;
  j["transfer_seconds"] = r.transfer_seconds;
  j["commit_seconds"] = r.commit_seconds;
  j["bytes"] = r.bytes;
  j["throughput_mib_s"] = r.throughput_mib_s;
  j["flags"] = r.flags;
  if (!r.client_bound.empty()) j["client_bound"] = r.client_bound;
  if (load) AddLoadParts(r, &j);
  // What followed its transfer (a save's time to visible).
  PlaceSections(r.sections, registry, run, ResultPlace::kRoundFigures, &j,
                &placed);
  if (!r.clocks.empty()) {
    ordered_json clocks = ordered_json::array();
    for (const auto& c : r.clocks) {
      clocks.push_back({{"node_index", c.node},
                        {"offset_ms", c.offset_ms},
                        {"rtt_ms", c.rtt_ms}});
    }
    j["clock"] = clocks;
  }
  j["start_spread_seconds"] = r.start_spread_seconds;
  j["requests"] = r.requests;
  j["retries"] = r.retries;
  j["throttles"] = r.throttles;
  j["backoff_seconds"] = r.backoff_seconds;
  j["new_connections"] = r.new_connections;
  j["cpu"] = {{"user_seconds", r.cpu_user_seconds},
              {"system_seconds", r.cpu_system_seconds},
              {"host_busy", r.host_cpu_busy}};
  ordered_json ops = ordered_json::object();
  for (const auto& [name, h] : r.ops) ops[name] = OpJson(h);
  j["op_latency"] = ops;
  ordered_json nodes = ordered_json::array();
  for (const auto& n : r.nodes) nodes.push_back(NodeJson(n, load));
  j["nodes"] = nodes;
  ordered_json stragglers = ordered_json::array();
  for (const auto& st : r.stragglers) {
    stragglers.push_back({{"node_index", st.node},
                          {"host", st.host},
                          {"seconds", st.seconds},
                          {"ratio_to_median", st.ratio_to_median},
                          {"reason", st.reason},
                          {"slowest_files", st.files}});
  }
  j["stragglers"] = stragglers;
  ordered_json ranks = ordered_json::array();
  for (const auto& k : r.ranks) ranks.push_back(RankJson(k, load));
  j["ranks"] = ranks;
  j["files"] = FilesJson(r.files);
  j["staging"] = StagingJson(r.staging);
  AddOtherSections(r.sections, placed, run, &j);
  WriteForeign(r.foreign, &j);  // what another build's file had, as it was
  return j;
}

ordered_json SpreadJson(const Spread& s) {
  return {{"mean", s.mean}, {"stdev", s.stdev}, {"min", s.min}, {"max", s.max}};
}

}  // namespace

ordered_json SummaryJson(const PhaseSummary& s) {
  ordered_json flags = ordered_json::object();
  for (const auto& [flag, n] : s.flags) flags[std::string(Name(flag))] = n;
  return {{"count", s.count},
          {"seconds", SpreadJson(s.seconds)},
          {"throughput_mib_s", SpreadJson(s.mib_s)},
          {"bytes", s.bytes},
          {"total_seconds", s.total_seconds},
          {"total_throughput_mib_s", s.total_mib_s},
          {"flags", flags}};
}

ordered_json PlanJson(const RunResult& r) {
  return {{"model", r.model},
          {"description", r.model_description},
          {"parameters", r.parameters},
          {"checkpoint_bytes", r.checkpoint_bytes},
          {"world_size", r.world_size},
          {"num_nodes", r.num_nodes},
          {"ranks_per_node", r.ranks_per_node},
          {"thread_count", r.thread_count},
          {"files", r.files},
          {"sharding", r.sharding},
          {"fingerprint", r.fingerprint},
          {"layout", r.layout}};
}

namespace {

ordered_json SweepJson(const SweepInfo& s) {
  ordered_json values = ordered_json::object();
  for (const auto& [k, v] : s.values) values[k] = v;
  return {{"name", s.name},    {"index", s.index},      {"runs", s.runs},
          {"run", s.run_name}, {"point", s.point_name}, {"repeat", s.repeat},
          {"values", values}};
}

ordered_json EnvironmentJson(const EnvironmentInfo& e) {
  return {{"host", e.host},
          {"kernel", e.kernel},
          {"cpus", e.cpus},
          {"memory_bytes", e.memory_bytes},
          {"storage", e.storage_kind},
          {"filesystem", e.filesystem},
          {"mount_point", e.mount_point},
          {"mount_options", e.mount_options},
          {"ckptbench_version", e.version}};
}

}  // namespace

ordered_json OpJson(const Histogram& h) {
  auto ms = [](uint64_t ns) { return static_cast<double>(ns) / 1e6; };
  ordered_json j;
  j["count"] = h.count();
  j["mean_ms"] = h.Mean() / 1e6;
  j["p50_ms"] = ms(h.Percentile(0.50));
  j["p90_ms"] = ms(h.Percentile(0.90));
  j["p99_ms"] = ms(h.Percentile(0.99));
  j["max_ms"] = ms(h.max());
  j["min_ms"] = ms(h.min());
  // The histogram itself, so that readers merge rounds, nodes and runs by
  // adding counts, never by averaging percentiles: [low_ns, count] for each
  // bucket used (log-linear, 16 per power of two; a bucket holds
  // [its low, the next bucket's low)), with the exact sum, min and max.
  j["sum_ns"] = h.sum();
  j["min_ns"] = h.min();
  j["max_ns"] = h.max();
  ordered_json buckets = ordered_json::array();
  const std::vector<uint64_t> counts = h.TrimmedCounts();
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    buckets.push_back({Histogram::BucketLow(static_cast<int>(i)), counts[i]});
  }
  j["buckets"] = buckets;
  return j;
}

std::string ResultToJson(const RunResult& r) {
  return ResultToJson(r, WorkloadRegistry::BuiltIn());
}

std::string ResultToJson(const RunResult& r, const WorkloadRegistry& registry) {
  ordered_json j;
  j["schema"] = kResultSchema;
  if (WorkloadRegistry::NamedInResult(r.workload)) {
    j["workload"] = r.workload;
  }
  j["status"] = r.status;
  j["errors"] = r.errors;
  j["notes"] = r.notes;
  j["leftovers"] = r.leftovers;
  j["run_id"] = r.run_id;
  j["started_at"] = r.started_at;
  j["finished_at"] = r.finished_at;
  if (r.sweep.index >= 0) j["sweep"] = SweepJson(r.sweep);
  ordered_json cfg = ordered_json::object();
  for (const auto& k : r.config) {
    cfg[k.key] = {{"value", k.value}, {"source", k.source}, {"env", k.env}};
  }
  j["config"] = cfg;
  j["environment"] = EnvironmentJson(r.environment);
  j["plan"] = PlanJson(r);
  ordered_json clocks = ordered_json::array();
  for (const auto& c : r.clocks) {
    clocks.push_back({{"node_index", c.node},
                      {"host", c.host},
                      {"offset_ms", c.offset_ms},
                      {"rtt_ms", c.rtt_ms}});
  }
  j["clock"] = {{"method", "8 ping exchanges per node, min round trip"},
                {"nodes", clocks}};
  // The sections placed before the rounds, in registration order (a
  // resharded restore's plan first).
  std::set<std::string_view> placed;
  PlaceSections(r.sections, registry, r, ResultPlace::kBeforeRounds, &j,
                &placed);
  ordered_json rounds = ordered_json::array();
  for (const auto& round : r.rounds) {
    rounds.push_back(RoundJson(round, r, registry));
  }
  j["rounds"] = rounds;
  j["summary"] = {{"save", SummaryJson(r.Summarize(Phase::kSave))},
                  {"load", SummaryJson(r.Summarize(Phase::kLoad))}};
  // The sections at the end: the registered ones in registration order
  // (the checkpoint's goodput first, right after the summary), then any
  // other by member.
  PlaceSections(r.sections, registry, r, ResultPlace::kAtEnd, &j, &placed);
  AddOtherSections(r.sections, placed, r, &j);
  WriteForeign(r.foreign, &j);  // what another build's file had, as it was
  SanitizeUtf8(j);
  // Whatever a message quotes, no credential this process holds (in one
  // process with its node, `ckptbench run`) reaches the file, in any of
  // its encodings.
  return ScrubSecrets(j.dump(2) + "\n");
}

}  // namespace ckpt
