#include "coordinator/client_check.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/log.h"
#include "coordinator/coordinator.h"

namespace ckpt {
namespace {

// How close a node came to either limit: the larger of its two shares,
// each over its threshold (>= 1: at the limit). An async save's process
// also runs the simulated training on purpose: its CPU share says nothing
// about the save, so only the data path's counts there.
// The share of its memory a node's staged copies held (0 without any, or
// when the node could not tell what it had left).
double StagingShare(const NodeResult& n) {
  const double staged = static_cast<double>(n.staging.staged_bytes);
  const double left = static_cast<double>(n.memory_available_bytes);
  return staged > 0 && left > 0 ? staged / (staged + left) : 0;
}

double Pressure(const NodeResult& n, bool async) {
  const double data = n.data_busy / kClientDataBusy;
  const double memory = StagingShare(n) / kClientStagingShare;
  return std::max(memory,
                  async ? data : std::max(data, n.cpu_busy / kClientCpuBusy));
}

std::string Why(const NodeResult& n, bool save, bool async) {
  std::string who = absl::StrCat("node ", n.node, " (", n.host, ")");
  const double memory = StagingShare(n) / kClientStagingShare;
  if (memory >= n.data_busy / kClientDataBusy &&
      (async || memory >= n.cpu_busy / kClientCpuBusy)) {
    return absl::StrFormat(
        "%s: its staged copies held %s, %.0f%% of the memory it had (at "
        "least %.0f%% means a larger checkpoint per node would swap or fail "
        "in ckptbench, not in the storage)",
        who, FormatBytes(n.staging.staged_bytes), 100 * StagingShare(n),
        100 * kClientStagingShare);
  }
  if (async || n.data_busy / kClientDataBusy >= n.cpu_busy / kClientCpuBusy) {
    return absl::StrFormat(
        "%s: its file threads spent %.0f%% of their time %s bytes (at least "
        "%.0f%% means the tool, not the storage, set the pace)",
        who, 100 * n.data_busy,
        save ? "generating and checksumming" : "verifying",
        100 * kClientDataBusy);
  }
  return absl::StrFormat(
      "%s: ckptbench used %.0f%% of the %d CPUs it may run on (at least "
      "%.0f%% means the tool, not the storage, set the pace)",
      who, 100 * n.cpu_busy, n.cpus, 100 * kClientCpuBusy);
}

}  // namespace

void FlagClientBound(RoundResult* r) {
  if (r->status != RunStatus::kOk || r->staged || r->nodes.empty()) return;
  // Over a few milliseconds both shares are noise (CPU time is accounted
  // in scheduler ticks); such a round is flagged short_phase already.
  if (r->seconds < kShortPhaseSeconds) return;
  const bool async = r->staging.async;
  const NodeResult* worst = nullptr;
  int bound = 0;
  for (const auto& n : r->nodes) {
    if (Pressure(n, async) < 1) continue;
    ++bound;
    if (worst == nullptr || Pressure(n, async) > Pressure(*worst, async)) {
      worst = &n;
    }
  }
  if (worst == nullptr) return;
  r->client_bound = Why(*worst, r->phase == Phase::kSave, async);
  if (bound > 1) {
    absl::StrAppend(&r->client_bound, "; ", bound - 1, " other node",
                    bound == 2 ? " was" : "s were", " too");
  }
  r->flags.push_back(RoundFlag::kClientBound);
  const bool memory =
      r->client_bound.find("staged copies") != std::string::npos;
  LOG_WARN(
      "%s %d was client-bound: %s. Its rate is ckptbench's limit on this "
      "machine, not the storage's: %s",
      r->phase, r->index, r->client_bound,
      memory ? "more memory per node, or more nodes (less checkpoint each), "
               "would lift it"
             : "more CPUs per node, more nodes, or a faster checksum "
               "(io.checksum) would raise it");
}

}  // namespace ckpt
