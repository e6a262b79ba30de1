#include "coordinator/client_check.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/log.h"

namespace ckpt {
namespace {

// How close a node came to either limit: the larger of its two shares,
// each over its threshold (>= 1: at the limit).
double Pressure(const NodeResult& n) {
  return std::max(n.data_busy / kClientDataBusy, n.cpu_busy / kClientCpuBusy);
}

std::string Why(const NodeResult& n, bool save) {
  std::string who = absl::StrCat("node ", n.node, " (", n.host, ")");
  if (n.data_busy / kClientDataBusy >= n.cpu_busy / kClientCpuBusy) {
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
  if (r->status != "ok" || r->staged || r->nodes.empty()) return;
  const NodeResult* worst = nullptr;
  int bound = 0;
  for (const auto& n : r->nodes) {
    if (Pressure(n) < 1) continue;
    ++bound;
    if (worst == nullptr || Pressure(n) > Pressure(*worst)) worst = &n;
  }
  if (worst == nullptr) return;
  r->client_bound = Why(*worst, r->phase == "save");
  if (bound > 1) {
    absl::StrAppend(&r->client_bound, "; ", bound - 1, " other node",
                    bound == 2 ? " was" : "s were", " too");
  }
  r->flags.push_back("client_bound");
  LOG_WARN(
      "%s %d was client-bound: %s. Its rate is ckptbench's limit on this "
      "machine, not the storage's: more CPUs per node, more nodes, or a "
      "faster checksum (io.checksum) would raise it",
      r->phase, r->index, r->client_bound);
}

}  // namespace ckpt
