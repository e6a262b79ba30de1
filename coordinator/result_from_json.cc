// ResultFromJson (json_codec.h): result.json read back field by field into
// RunResult, the inverse of ResultToJson (json_codec.cc).
#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/text.h"
#include "coordinator/json_codec.h"
#include "coordinator/result_fields.h"
#include "coordinator/result_foreign.h"
#include "coordinator/workload_registry.h"

namespace ckpt {

// Ordered, as result_fields.h reads it (a name of its own: a unity build
// puts other files' `json` beside this one).
using ResultJson = result_json::json;

// An op_latency entry back into a Histogram, from its buckets
// ([low_ns, count] each) and its exact count, sum, min and max.
void ReadHistogram(const Fields& f, Histogram* out) {
  uint64_t count = 0, sum = 0, min = 0, max = 0, total = 0;
  f.Get("count", &count);
  f.Get("sum_ns", &sum);
  f.Get("min_ns", &min);
  f.Get("max_ns", &max);
  std::vector<uint64_t> counts(Histogram::kNumBuckets, 0);
  f.EachValue("buckets", [&](const ResultJson& b, const std::string& at) {
    std::vector<uint64_t> pair;
    f.Read(b, at, &pair);
    if (pair.size() != 2) return f.Fail(at, "a pair [low_ns, count]", b);
    counts[Histogram::BucketIndex(pair[0])] += pair[1];
    total += pair[1];
  });
  if (total != count) {
    return f.Fail(absl::StrCat(f.path(), ".buckets"),
                  "bucket counts adding up to its count", ResultJson(total));
  }
  if (count > 0 && min > max) {
    return f.Fail(absl::StrCat(f.path(), ".min_ns"), "at most its max_ns",
                  ResultJson(min));
  }
  *out = Histogram::FromParts(std::move(counts), count, sum, min, max);
}

namespace {

void ReadNode(const Fields& f, NodeResult* n) {
  f.Get("node_index", &n->node);
  f.Get("ranks", &n->ranks);
  f.Get("host", &n->host);
  f.Get("bytes", &n->bytes);
  f.Get("seconds", &n->seconds);
  f.Get("throughput_mib_s", &n->throughput_mib_s);
  f.Get("first_done_seconds", &n->first_done_seconds);
  f.Get("last_done_seconds", &n->last_done_seconds);
  f.Get("dir_sync_seconds", &n->dir_sync_seconds);
  f.Get("start_lag_seconds", &n->start_lag_seconds);
  f.Get("cpu_user_seconds", &n->cpu_user_seconds);
  f.Get("cpu_system_seconds", &n->cpu_system_seconds);
  f.Get("host_cpu_busy", &n->host_cpu_busy);
  f.Get("data_busy", &n->data_busy);
  f.Get("cpu_busy", &n->cpu_busy);
  f.Get("cpus", &n->cpus);
  f.Get("filesystem", &n->filesystem);
  f.Get("mount_point", &n->mount_point);
  f.Get("mount_options", &n->mount_options);
  f.Get("requests", &n->requests);
  f.Get("retries", &n->retries);
  f.Get("throttles", &n->throttles);
  f.Get("backoff_seconds", &n->backoff_seconds);
  f.Get("memory_available_bytes", &n->memory_available_bytes);
  f.Get("peak_rss_bytes", &n->peak_rss_bytes);
  f.Get("new_connections", &n->new_connections);
  f.Get("read_from_nodes", &n->read_from_nodes);
  const Fields s = f.Object("staging");
  s.Get("copy_seconds", &n->staging.copy_seconds);
  s.Get("copy_bytes", &n->staging.copy_bytes);
  s.Get("blocking_seconds", &n->staging.blocking_seconds);
  s.Get("durable_seconds", &n->staging.durable_seconds);
  s.Get("compute_seconds", &n->staging.compute_seconds);
  s.Get("compute_baseline_seconds", &n->staging.compute_baseline_seconds);
  s.Get("staged_bytes", &n->staging.staged_bytes);
}

void ReadRank(const Fields& f, RankResult* k) {
  f.Get("rank", &k->rank);
  f.Get("node", &k->node);
  f.Get("bytes", &k->bytes);
  f.Get("first_byte_seconds", &k->first_byte_seconds);
  f.Get("seconds", &k->seconds);
  f.Get("verified", &k->verified);
  f.Get("data_seconds", &k->data_seconds);
  f.Get("io_seconds", &k->io_seconds);
  f.Get("sync_seconds", &k->sync_seconds);
  f.Get("wait_seconds", &k->wait_seconds);
  f.Get("requests", &k->requests);
  f.Get("retries", &k->retries);
  f.Get("read_rank", &k->read_rank);
  f.Get("read_from_node", &k->read_from_node);
}

// Reads one cell of the per-file table into its FileRecord field.
using Cell = std::function<void(const Fields&, const ResultJson&,
                                const std::string&, FileRecord*)>;

template <typename T>
std::pair<const char*, Cell> Column(const char* name, T FileRecord::*m) {
  return {name, [m](const Fields& f, const ResultJson& v, const std::string& at,
                    FileRecord* r) { f.Read(v, at, &(r->*m)); }};
}

// The per-file table's columns this version reads, by name.
const std::map<std::string, Cell>& FileColumns() {
  static const auto* kColumns = new std::map<std::string, Cell>{
      Column("node", &FileRecord::node),
      Column("rank", &FileRecord::rank),
      Column("file", &FileRecord::file_index),
      Column("name", &FileRecord::name),
      Column("bytes", &FileRecord::bytes),
      Column("start", &FileRecord::start),
      Column("first_byte", &FileRecord::first_byte),
      Column("last_byte", &FileRecord::last_byte),
      Column("done", &FileRecord::done),
      Column("data_seconds", &FileRecord::data),
      Column("io_seconds", &FileRecord::io),
      Column("sync_seconds", &FileRecord::sync),
      Column("requests", &FileRecord::requests),
      Column("retries", &FileRecord::retries),
  };
  return *kColumns;
}

// The per-file table: rows whose cells follow the columns it names (a
// column this version does not know is skipped), each column's reader
// found once per table.
void ReadFiles(const Fields& f, std::vector<FileRecord>* files) {
  std::vector<std::string> columns;
  f.Get("columns", &columns);
  std::vector<const Cell*> cells;
  for (const std::string& name : columns) {
    auto it = FileColumns().find(name);
    cells.push_back(it == FileColumns().end() ? nullptr : &it->second);
  }
  f.EachValue("rows", [&](const ResultJson& row, const std::string& at) {
    if (!row.is_array()) return f.Fail(at, "an array", row);
    FileRecord r;
    for (size_t c = 0; c < cells.size() && c < row.size(); ++c) {
      if (cells[c] == nullptr || row[c].is_null()) continue;
      (*cells[c])(f, row[c], absl::StrCat(at, "[", c, "]"), &r);
    }
    files->push_back(std::move(r));
  });
}

void ReadRoundStaging(const Fields& f, RoundStaging* st) {
  f.Get("accelerator", &st->accelerator);
  f.Get("async", &st->async);
  f.Get("copy_bytes", &st->copy_bytes);
  f.Get("copy_seconds", &st->copy_seconds);
  f.Get("copy_gib_s", &st->copy_gib_s);
  f.Get("staging_gib_s", &st->staging_gib_s);
  f.Get("pinned", &st->pinned);
  f.Get("blocking_seconds", &st->blocking_seconds);
  f.Get("persist_seconds", &st->persist_seconds);
  f.Get("compute_seconds", &st->compute_seconds);
  f.Get("compute_baseline_seconds", &st->compute_baseline_seconds);
  f.Get("compute_slowdown", &st->compute_slowdown);
  f.Get("slowdown_seconds", &st->slowdown_seconds);
  f.Get("fell_behind", &st->fell_behind);
  f.Get("checkpoint_cost_seconds", &st->checkpoint_cost_seconds);
  f.Get("staged_bytes", &st->staged_bytes);
}

// A load's coverage, page cache and reshard figures.
void ReadPhaseParts(const Fields& f, RoundResult* r) {
  f.Get("rank_shift", &r->rank_shift);
  f.Get("resharded", &r->resharded);
  f.Get("read_amplification", &r->read_amplification);
  f.Get("bytes_read", &r->bytes_read);
  f.Get("verified", &r->verified);
  const Fields cov = f.Object("coverage");
  cov.Get("files_checked", &r->checked_files);
  cov.Get("files_planned", &r->planned_files);
  cov.Get("bytes_checked", &r->checked_bytes);
  cov.Get("bytes_planned", &r->planned_bytes);
  const Fields pc = f.Object("page_cache");
  pc.Get("method", &r->cache.method);
  pc.Get("resident_bytes_at_start", &r->cache.resident_bytes);
  pc.Get("checked_bytes", &r->cache.checked_bytes);
  pc.Get("note", &r->cache.note);
  pc.Get("probe", &r->cache.probe);
}

// Each member of the run's object (of a round's, at a round's place) that
// a workload of `registry` has a codec for at `place`, read by it into its
// type, in the file's order. Each place's are read where they are in the
// file (the run's before the rounds after the run's own members, those at
// the end after the rounds; a round's at its head first, those after its
// figures after them), so a file's first wrong member is the one named.
void ReadSections(const Fields& f, const WorkloadRegistry& registry,
                  ResultPlace place, ResultSections* out) {
  const ResultJson& obj = f.value();
  if (!f.status()->ok() || !obj.is_object()) return;
  const bool round = IsRoundPlace(place);
  for (const auto& [key, value] : obj.items()) {
    const ResultSectionCodec* codec =
        round ? registry.RoundSectionCodec(key) : registry.SectionCodec(key);
    if (codec == nullptr || codec->place != place || value.is_null()) continue;
    if (!value.is_object()) return f.Fail(f.Path(key), "an object", value);
    if (DepthOf(value, kMaxForeignDepth) > kMaxForeignDepth) {
      const std::string want =
          absl::StrCat("an object nested at most ", kMaxForeignDepth, " deep");
      return f.Fail(f.Path(key), want.c_str(), value);
    }
    auto section = codec->read(value.dump(), f.Path(key));
    if (!section.ok() || *section == nullptr) {
      *f.status() = absl::InvalidArgumentError(
          section.ok() ? absl::StrCat(f.Path(key), ": no section")
                       : std::string(section.status().message()));
      return;
    }
    out->emplace(key, std::move(*section));
  }
}

// The members of a round and of a run that this build reads; any other is
// carried through (result_foreign.h).
// clang-format off
constexpr std::string_view kRoundMembers[] = {
    "workload", "phase", "index", "staged", "step", "status",
    "error", "error_kind", "seconds", "transfer_seconds", "commit_seconds",
    "bytes", "throughput_mib_s", "flags", "client_bound", "rank_shift",
    "resharded", "read_amplification", "bytes_read", "verified", "coverage",
    "page_cache", "clock", "start_spread_seconds",
    "requests", "retries", "throttles", "backoff_seconds", "new_connections",
    "cpu", "op_latency", "nodes", "stragglers", "ranks", "files", "staging"};
constexpr std::string_view kRunMembers[] = {
    "schema", "workload", "status", "errors", "notes", "leftovers", "run_id",
    "started_at", "finished_at", "sweep", "config", "environment", "plan",
    "clock", "rounds", "summary"};
// clang-format on

void ReadRound(const Fields& f, const WorkloadRegistry& registry,
               RoundResult* r) {
  ReadForeign(f, kRoundMembers, registry, /*run_object=*/false, &r->workload,
              &r->foreign);
  ReadSections(f, registry, ResultPlace::kRoundHead, &r->sections);
  f.Get("phase", &r->phase);
  f.Get("index", &r->index);
  f.Get("staged", &r->staged);
  f.Get("step", &r->step);
  f.Get("status", &r->status);
  f.Get("error", &r->error);
  f.Get("error_kind", &r->error_kind);
  f.Get("seconds", &r->seconds);
  f.Get("transfer_seconds", &r->transfer_seconds);
  f.Get("commit_seconds", &r->commit_seconds);
  f.Get("bytes", &r->bytes);
  f.Get("throughput_mib_s", &r->throughput_mib_s);
  f.Get("flags", &r->flags);
  f.Get("client_bound", &r->client_bound);
  ReadPhaseParts(f, r);
  ReadSections(f, registry, ResultPlace::kRoundFigures, &r->sections);
  f.Each("clock", [&](const Fields& c) {
    NodeClock& clock = r->clocks.emplace_back();
    c.Get("node_index", &clock.node);
    c.Get("offset_ms", &clock.offset_ms);
    c.Get("rtt_ms", &clock.rtt_ms);
  });
  f.Get("start_spread_seconds", &r->start_spread_seconds);
  f.Get("requests", &r->requests);
  f.Get("retries", &r->retries);
  f.Get("throttles", &r->throttles);
  f.Get("backoff_seconds", &r->backoff_seconds);
  f.Get("new_connections", &r->new_connections);
  const Fields cpu = f.Object("cpu");
  cpu.Get("user_seconds", &r->cpu_user_seconds);
  cpu.Get("system_seconds", &r->cpu_system_seconds);
  cpu.Get("host_busy", &r->host_cpu_busy);
  f.Members("op_latency", [&](const std::string& name, const ResultJson& v,
                              const std::string& at) {
    if (!v.is_object()) return f.Fail(at, "an object", v);
    const Fields op(v, at, f.status());
    if (op.Has("buckets")) return ReadHistogram(op, &r->ops[name]);
    // Written before the buckets were: the percentiles it gives.
    OpPercentiles& p = r->ops_without_buckets[name];
    op.Get("count", &p.count);
    op.Get("min_ms", &p.min_ms);
    op.Get("p50_ms", &p.p50_ms);
    op.Get("p90_ms", &p.p90_ms);
    op.Get("p99_ms", &p.p99_ms);
    op.Get("max_ms", &p.max_ms);
  });
  f.Each("nodes",
         [&](const Fields& n) { ReadNode(n, &r->nodes.emplace_back()); });
  f.Each("stragglers", [&](const Fields& s) {
    Straggler& st = r->stragglers.emplace_back();
    s.Get("node_index", &st.node);
    s.Get("host", &st.host);
    s.Get("seconds", &st.seconds);
    s.Get("ratio_to_median", &st.ratio_to_median);
    s.Get("reason", &st.reason);
    s.Get("slowest_files", &st.files);
  });
  f.Each("ranks",
         [&](const Fields& k) { ReadRank(k, &r->ranks.emplace_back()); });
  ReadFiles(f.Object("files"), &r->files);
  ReadRoundStaging(f.Object("staging"), &r->staging);
}

// The run's context: sweep, configuration, environment, plan, clocks.
void ReadContext(const Fields& f, RunResult* r) {
  if (f.Has("sweep")) {
    const Fields s = f.Object("sweep");
    s.Get("name", &r->sweep.name);
    s.Get("index", &r->sweep.index);
    s.Get("runs", &r->sweep.runs);
    s.Get("run", &r->sweep.run_name);
    s.Get("point", &r->sweep.point_name);
    s.Get("repeat", &r->sweep.repeat);
    s.Members("values", [&](const std::string& k, const ResultJson& v,
                            const std::string& at) {
      std::string value;
      s.Read(v, at, &value);
      r->sweep.values.emplace_back(k, value);
    });
  }
  f.Members("config", [&](const std::string& key, const ResultJson& v,
                          const std::string& at) {
    if (!v.is_object()) return f.Fail(at, "an object", v);
    const Fields k(v, at, f.status());
    ResolvedKey& rk = r->config.emplace_back();
    rk.key = key;
    k.Get("value", &rk.value);
    k.Get("source", &rk.source);
    k.Get("env", &rk.env);
  });
  const Fields e = f.Object("environment");
  EnvironmentInfo& env = r->environment;
  e.Get("host", &env.host);
  e.Get("kernel", &env.kernel);
  e.Get("cpus", &env.cpus);
  e.Get("memory_bytes", &env.memory_bytes);
  e.Get("storage", &env.storage_kind);
  e.Get("filesystem", &env.filesystem);
  e.Get("mount_point", &env.mount_point);
  e.Get("mount_options", &env.mount_options);
  e.Get("ckptbench_version", &env.version);
  const Fields p = f.Object("plan");
  p.Get("model", &r->model);
  p.Get("description", &r->model_description);
  p.Get("parameters", &r->parameters);
  p.Get("checkpoint_bytes", &r->checkpoint_bytes);
  p.Get("world_size", &r->world_size);
  p.Get("num_nodes", &r->num_nodes);
  p.Get("ranks_per_node", &r->ranks_per_node);
  p.Get("thread_count", &r->thread_count);
  p.Get("files", &r->files);
  p.Get("sharding", &r->sharding);
  p.Get("fingerprint", &r->fingerprint);
  p.Get("layout", &r->layout);
  f.Object("clock").Each("nodes", [&](const Fields& c) {
    NodeClock& clock = r->clocks.emplace_back();
    c.Get("node_index", &clock.node);
    c.Get("host", &clock.host);
    c.Get("offset_ms", &clock.offset_ms);
    c.Get("rtt_ms", &clock.rtt_ms);
  });
}

}  // namespace

bool IsRunResultMember(std::string_view name) {
  return std::find(std::begin(kRunMembers), std::end(kRunMembers), name) !=
         std::end(kRunMembers);
}

bool IsRoundResultMember(std::string_view name) {
  return std::find(std::begin(kRoundMembers), std::end(kRoundMembers), name) !=
         std::end(kRoundMembers);
}

absl::StatusOr<RunResult> ResultFromJson(const std::string& text,
                                         const std::string& where) {
  return ResultFromJson(text, where, WorkloadRegistry::BuiltIn());
}

absl::StatusOr<RunResult> ResultFromJson(const std::string& text,
                                         const std::string& where,
                                         const WorkloadRegistry& registry) {
  const ResultJson j =
      ResultJson::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::DataLossError(absl::StrCat(where, ": not a JSON object"));
  }
  absl::Status status;
  const Fields f(j, "", &status);
  std::string schema = kResultSchema;
  f.Get("schema", &schema);
  if (status.ok() && schema != kResultSchema) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": schema \"", EscapeForTerminal(schema.substr(0, 60)),
        "\"; expected ", kResultSchema));
  }
  RunResult r;
  ReadForeign(f, kRunMembers, registry, /*run_object=*/true, &r.workload,
              &r.foreign);
  f.Get("status", &r.status);
  f.Get("errors", &r.errors);
  f.Get("notes", &r.notes);
  f.Get("leftovers", &r.leftovers);
  f.Get("run_id", &r.run_id);
  f.Get("started_at", &r.started_at);
  f.Get("finished_at", &r.finished_at);
  ReadContext(f, &r);
  ReadSections(f, registry, ResultPlace::kBeforeRounds, &r.sections);
  f.Each("rounds", [&](const Fields& round) {
    ReadRound(round, registry, &r.rounds.emplace_back());
  });
  ReadSections(f, registry, ResultPlace::kAtEnd, &r.sections);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", status.message()));
  }
  for (const std::string& line : ForeignLines(r)) {
    LOG_WARN("%s: %s", EscapeForTerminal(where), line);
  }
  return r;
}

}  // namespace ckpt
