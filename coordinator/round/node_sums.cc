#include "coordinator/round/node_sums.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/log.h"

namespace ckpt {
namespace {

void AppendOnce(std::string* list, const std::string& part) {
  if (part.empty() || list->find(part) != std::string::npos) return;
  absl::StrAppend(list, list->empty() ? "" : "; ", part);
}

}  // namespace

void FillNodeStorage(const PrepareOutcome& p, NodeResult* nr) {
  if (p.storage_kind) nr->storage_kind = std::string(Name(*p.storage_kind));
  nr->filesystem = p.filesystem.type;
  nr->mount_point = p.filesystem.mount_point;
  nr->mount_options = p.filesystem.options;
}

void SumUpColdReads(const std::vector<PrepareOutcome>& prepared,
                    const std::string& label, RoundResult* result) {
  if (prepared.empty()) return;
  CacheResult& cache = result->cache;
  // The nodes' one method, unless they differ ("mixed").
  const CacheMethod method = prepared[0].cache.method;
  bool mixed = false;
  for (const PrepareOutcome& p : prepared) {
    mixed |= p.cache.method != method;
    cache.resident_bytes += p.cache.resident_bytes;
    cache.checked_bytes += p.cache.checked_bytes;
    // Nodes on the same kind of storage say the same: keep one of each.
    AppendOnce(&cache.note, p.cache.note);
    AppendOnce(&cache.probe, p.cache.probe);
  }
  cache.method = mixed ? std::string("mixed") : std::string(Name(method));
  if (!mixed && method == CacheMethod::kMemory) {
    result->flags.push_back(RoundFlag::kMemoryBacked);
    LOG_WARN("%s: %s", label, cache.note);
  } else if (!mixed && method == CacheMethod::kNone &&
             std::any_of(prepared.begin(), prepared.end(), [](const auto& p) {
               return p.storage_kind == StorageKind::kPosix ||
                      p.storage_kind == StorageKind::kFuse;
             })) {
    // Asked for (io.cache_mode=none): the number may be the page cache's.
    result->flags.push_back(RoundFlag::kPageCacheAllowed);
  } else if (cache.resident_bytes > 0 &&
             (mixed || method != CacheMethod::kODirect)) {
    result->flags.push_back(RoundFlag::kPageCacheResident);
    absl::StrAppend(&cache.note, cache.note.empty() ? "" : "; ",
                    cache.resident_bytes,
                    " bytes were still in the page cache at start");
    LOG_WARN("%s: %s", label, cache.note);
  }
}

// The node's own figures from its report (its ranks' already in `nr`).
void FillNode(const PhaseOutcome& rep, NodeResult* nr) {
  std::sort(nr->read_from_nodes.begin(), nr->read_from_nodes.end());
  nr->seconds = nr->last_done_seconds + rep.dir_sync_seconds;
  nr->throughput_mib_s = MibPerSecond(nr->bytes, nr->seconds);
  nr->cpu_user_seconds = rep.cpu.user_seconds;
  nr->cpu_system_seconds = rep.cpu.system_seconds;
  nr->host_cpu_busy = rep.cpu.host_busy;
  nr->start_lag_seconds = rep.start_lag_seconds;
  nr->dir_sync_seconds = rep.dir_sync_seconds;
  nr->cpus = rep.cpus;
  nr->data_busy =
      rep.file_seconds > 0 ? rep.data_seconds / rep.file_seconds : 0;
  nr->cpu_busy = nr->seconds > 0 && nr->cpus > 0
                     ? (nr->cpu_user_seconds + nr->cpu_system_seconds) /
                           (nr->seconds * nr->cpus)
                     : 0;
  nr->requests = rep.requests;
  nr->retries = rep.retries;
  nr->throttles = rep.throttles;
  nr->backoff_seconds = rep.backoff_seconds;
  nr->memory_available_bytes = rep.memory_available_bytes;
  nr->peak_rss_bytes = rep.peak_rss_bytes;
  nr->new_connections = rep.new_connections;
  const StagingOutcome& st = rep.staging;
  nr->staging.copy_seconds = st.copy_seconds;
  nr->staging.copy_bytes = st.copy_bytes;
  nr->staging.blocking_seconds = st.blocking_seconds;
  nr->staging.durable_seconds = st.durable_seconds;
  nr->staging.compute_seconds = st.compute_seconds;
  nr->staging.compute_baseline_seconds = st.compute_baseline_seconds;
  nr->staging.staged_bytes = st.staged_bytes;
  nr->staging.pinned = st.pinned;
}

// The node's counts into the round's, and its histograms merged.
void AddNode(const PhaseOutcome& rep, const NodeResult& nr,
             RoundResult* result) {
  result->bytes += nr.bytes;
  result->new_connections += nr.new_connections;
  result->requests += nr.requests;
  result->retries += nr.retries;
  result->throttles += nr.throttles;
  result->backoff_seconds += nr.backoff_seconds;
  result->cpu_user_seconds += nr.cpu_user_seconds;
  result->cpu_system_seconds += nr.cpu_system_seconds;
  // Only operations that happened (a save reads nothing).
  ForEachOp(rep.ops, [result](const char* name, const Histogram& h) {
    if (h.count() > 0) result->ops[name].Merge(h);
  });
}

const NodeResult& AppendNode(const NodeClient& node, const PhaseOutcome& rep,
                             const PrepareOutcome* prepared, NodeResult nr,
                             RoundResult* result) {
  nr.node = node.index();
  nr.host = node.host();
  if (prepared != nullptr) FillNodeStorage(*prepared, &nr);
  FillNode(rep, &nr);
  AddNode(rep, nr, result);
  result->nodes.push_back(std::move(nr));
  return result->nodes.back();
}

}  // namespace ckpt
