#include "coordinator/json_codec.h"

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ckpt {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::string Hex(uint64_t v) { return absl::StrFormat("%016x", v); }

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
  return j;
}

ordered_json RoundJson(const RoundResult& r) {
  ordered_json j;
  j["phase"] = r.phase;
  j["index"] = r.index;
  j["staged"] = r.staged;
  j["step"] = r.step;
  j["status"] = r.status;
  if (!r.error.empty()) j["error"] = r.error;
  j["seconds"] = r.seconds;
  j["transfer_seconds"] = r.transfer_seconds;
  j["commit_seconds"] = r.commit_seconds;
  j["bytes"] = r.bytes;
  j["throughput_mib_s"] = r.throughput_mib_s;
  if (r.phase == "load") {
    j["verified"] = r.verified;
    j["page_cache"] = {{"method", r.cache.method},
                       {"resident_bytes_at_start", r.cache.resident_bytes},
                       {"checked_bytes", r.cache.checked_bytes},
                       {"note", r.cache.note}};
  }
  j["start_spread_seconds"] = r.start_spread_seconds;
  j["cpu"] = {{"user_seconds", r.cpu_user_seconds},
              {"system_seconds", r.cpu_system_seconds},
              {"host_busy", r.host_cpu_busy}};
  ordered_json ops = ordered_json::object();
  for (const auto& [name, h] : r.ops) ops[name] = OpJson(h);
  j["op_latency"] = ops;
  ordered_json nodes = ordered_json::array();
  for (const auto& n : r.nodes) {
    nodes.push_back({{"node", n.node},
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
                     {"filesystem", n.filesystem},
                     {"mount_point", n.mount_point},
                     {"mount_options", n.mount_options}});
  }
  j["nodes"] = nodes;
  ordered_json ranks = ordered_json::array();
  for (const auto& k : r.ranks) {
    ranks.push_back({{"rank", k.rank},
                     {"node", k.node},
                     {"bytes", k.bytes},
                     {"first_byte_seconds", k.first_byte_seconds},
                     {"seconds", k.seconds},
                     {"verified", k.verified}});
  }
  j["ranks"] = ranks;
  return j;
}

ordered_json SummaryJson(const PhaseSummary& s) {
  return {{"count", s.count},
          {"seconds",
           {{"mean", s.mean_seconds},
            {"stdev", s.stdev_seconds},
            {"min", s.min_seconds},
            {"max", s.max_seconds}}},
          {"throughput_mib_s",
           {{"mean", s.mean_mib_s},
            {"stdev", s.stdev_mib_s},
            {"min", s.min_mib_s},
            {"max", s.max_mib_s}}}};
}

}  // namespace

std::string ResultToJson(const RunResult& r) {
  ordered_json j;
  j["schema"] = kResultSchema;
  j["status"] = r.status;
  j["errors"] = r.errors;
  j["notes"] = r.notes;
  j["run_id"] = r.run_id;
  j["started_at"] = r.started_at;
  j["finished_at"] = r.finished_at;
  ordered_json cfg = ordered_json::object();
  for (const auto& k : r.config) {
    cfg[k.key] = {{"value", k.value}, {"source", k.source}, {"env", k.env}};
  }
  j["config"] = cfg;
  const auto& e = r.environment;
  j["environment"] = {{"host", e.host},
                      {"kernel", e.kernel},
                      {"cpus", e.cpus},
                      {"memory_bytes", e.memory_bytes},
                      {"storage", e.storage_kind},
                      {"filesystem", e.filesystem},
                      {"mount_point", e.mount_point},
                      {"mount_options", e.mount_options},
                      {"ckptbench_version", e.version}};
  j["plan"] = {{"model", r.model},
               {"description", r.model_description},
               {"parameters", r.parameters},
               {"checkpoint_bytes", r.checkpoint_bytes},
               {"world_size", r.world_size},
               {"num_nodes", r.num_nodes},
               {"ranks_per_node", r.ranks_per_node},
               {"thread_count", r.thread_count},
               {"files", r.files},
               {"sharding", r.sharding},
               {"fingerprint", r.fingerprint}};
  ordered_json rounds = ordered_json::array();
  for (const auto& round : r.rounds) rounds.push_back(RoundJson(round));
  j["rounds"] = rounds;
  j["summary"] = {{"save", SummaryJson(r.Summarize("save"))},
                  {"load", SummaryJson(r.Summarize("load"))}};
  return j.dump(2) + "\n";
}

std::string MetadataToJson(const CheckpointPlan& plan, uint64_t step,
                           uint64_t seed, const std::string& checksum,
                           const SegmentChecksums& sums) {
  ordered_json j;
  j["format"] = kMetadataFormat;
  j["step"] = step;
  j["seed"] = seed;
  j["checksum"] = checksum;
  j["fingerprint"] = plan.fingerprint;
  j["plan"] = {{"model", plan.model},
               {"parameters", plan.parameters},
               {"world_size", plan.world_size},
               {"num_nodes", plan.num_nodes},
               {"ranks_per_node", plan.ranks_per_node},
               {"thread_count", plan.thread_count},
               {"sharding", plan.sharding},
               {"total_bytes", plan.total_bytes}};
  ordered_json tensors = ordered_json::array();
  for (const auto& t : plan.tensors) {
    tensors.push_back(
        {{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}});
  }
  j["tensors"] = tensors;
  // files[].segments[]: [tensor index, tensor offset, length, file offset,
  // checksum]
  ordered_json files = ordered_json::array();
  for (const auto& r : plan.ranks) {
    for (const auto& f : r.files) {
      ordered_json segs = ordered_json::array();
      for (size_t k = 0; k < f.segments.size(); ++k) {
        const auto& s = f.segments[k];
        auto it = sums.find({r.rank, f.index, static_cast<uint32_t>(k)});
        segs.push_back(ordered_json::array(
            {s.tensor, s.tensor_offset, s.length, s.file_offset,
             it == sums.end() ? std::string() : Hex(it->second)}));
      }
      files.push_back({{"rank", r.rank},
                       {"index", f.index},
                       {"name", f.name},
                       {"size", f.size},
                       {"segments", segs}});
    }
  }
  j["files"] = files;
  return j.dump() + "\n";
}

absl::StatusOr<CheckpointMetadata> ParseMetadata(const std::string& text,
                                                 const std::string& where) {
  CheckpointMetadata m;
  try {
    json j = json::parse(text);
    if (j.value("format", "") != kMetadataFormat) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": not a ckptbench checkpoint (format '",
          j.value("format", ""), "', expected ", kMetadataFormat, ")"));
    }
    m.step = j.at("step").get<uint64_t>();
    m.seed = j.at("seed").get<uint64_t>();
    m.checksum = j.at("checksum").get<std::string>();
    m.fingerprint = j.at("fingerprint").get<std::string>();
    const auto& p = j.at("plan");
    m.model = p.at("model").get<std::string>();
    m.world_size = p.at("world_size").get<int>();
    m.thread_count = p.at("thread_count").get<int>();
    m.sharding = p.at("sharding").get<std::string>();
    m.total_bytes = p.at("total_bytes").get<uint64_t>();
    for (const auto& f : j.at("files")) {
      uint32_t rank = f.at("rank").get<uint32_t>();
      uint32_t index = f.at("index").get<uint32_t>();
      const auto& segs = f.at("segments");
      for (size_t k = 0; k < segs.size(); ++k) {
        std::string hex = segs[k].at(4).get<std::string>();
        if (hex.empty()) continue;
        m.sums[{rank, index, static_cast<uint32_t>(k)}] =
            std::stoull(hex, nullptr, 16);
      }
    }
  } catch (const std::exception& e) {
    return absl::DataLossError(
        absl::StrCat(where, ": unreadable .metadata: ", e.what()));
  }
  return m;
}

}  // namespace ckpt
