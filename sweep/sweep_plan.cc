#include "sweep/sweep_plan.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bytes.h"
#include "common/config_keys.h"
#include "common/log.h"
#include "common/step_layout.h"
#include "coordinator/config_checks.h"
#include "coordinator/workload_registry.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// A group swept in the file whose keys the environment overrides makes
// every point alike: say so (once per key).
void WarnEnvironmentOverGroups(const Experiment& e, const LoadOptions& options,
                               const LoadedConfig& loaded,
                               std::set<std::string>* warned) {
  for (const auto& p : e.params) {
    if (!p.group || p.values.size() < 2) continue;
    std::string prefix =
        (fs::path(e.path).parent_path() / p.canonical).string() + "/";
    for (const auto& v : options.file_values) {
      if (v.where.rfind(prefix, 0) != 0) continue;
      const KeyDef* def = FindKey(v.key);
      if (def == nullptr || loaded.sources.at(def->key) != "environment" ||
          !warned->insert(def->key).second) {
        continue;
      }
      LOG_WARN(
          "%s (%s) from the environment overrides the swept group '%s' in "
          "every point (unset it to let %s set it)",
          def->env, def->key, p.name, v.where);
    }
  }
}

// A run's sources with its point's sub-path, checked the way `run` checks
// them: configuration, validation and plan.
absl::StatusOr<CheckedRun> CheckRun(const Experiment& e, const SweepRun& run,
                                    std::set<std::string>* warned) {
  auto options = RunLoadOptions(e, run);
  if (!options.ok()) return options.status();
  auto loaded = LoadConfig(*options);
  if (!loaded.ok()) return loaded.status();
  WarnEnvironmentOverGroups(e, *options, *loaded, warned);
  const StorageOptions& storage = loaded->config.storage;
  const Config& given = loaded->config;
  // One workload prepared by another, as the registry says.
  const Preparation* by =
      WorkloadRegistry::BuiltIn().PreparationOf(given.run.workload);
  std::optional<std::vector<SourcedValue>> prepare;
  if (by != nullptr && e.prepare == by->by) prepare = by->needs(given);
  if (prepare) {
    for (const SourcedValue& v : *prepare) options->final_values.push_back(v);
  }
  const std::string where = "sweep: the point's own sub-path";
  if (!storage.path.empty()) {
    options->final_values.push_back(
        {"storage.path", PointPath(storage.path, run.point), where});
  }
  if (!storage.restore_path.empty()) {
    options->final_values.push_back({"storage.restore_path",
                                     PointPath(storage.restore_path, run.point),
                                     where});
  }
  loaded = LoadConfig(*options);
  if (!loaded.ok()) return loaded.status();
  const Config& config = loaded->config;
  if (auto s = ValidateConfig(config, /*need_storage=*/true); !s.ok()) {
    return s;
  }
  if (auto s = WorkloadRegistry::BuiltIn().Plan(config, nullptr); !s.ok()) {
    return s;
  }
  CheckedRun checked{std::move(*options), config, std::nullopt, ""};
  if (prepare) {
    LoadOptions gen = checked.options;
    gen.final_values.push_back(
        {"run.workload", by->by, absl::StrCat("sweep: prepare: ", by->by)});
    auto made = LoadConfig(gen);
    if (!made.ok()) return made.status();
    if (auto s = ValidateConfig(made->config, true); !s.ok()) return s;
    checked.prepare = std::move(gen);
    checked.dataset = by->target(config);
  }
  return checked;
}

}  // namespace

// "<path>/point-NNN": each point of the product its own part of the storage
// target, so points with different plans never read each other's steps.
std::string PointPath(const std::string& path, int point) {
  std::string base = path;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return absl::StrFormat("%s/point-%03d", base, point);
}

// The control channel is set up once for the whole sweep: it must not vary.
absl::Status SameControl(const Config& a, const Config& b) {
  const ControlOptions &x = a.control, &y = b.control;
  bool same = x.listen == y.listen && x.token == y.token &&
              x.tls_cert == y.tls_cert && x.tls_key == y.tls_key &&
              x.tls_ca == y.tls_ca &&
              x.register_timeout == y.register_timeout &&
              x.node_timeout == y.node_timeout &&
              x.heartbeat_interval == y.heartbeat_interval &&
              x.coordinator_health_port == y.coordinator_health_port;
  if (same) return absl::OkStatus();
  return absl::InvalidArgumentError(
      "control.* / tls.* / auth.* differ between points: the coordinator "
      "serves one control channel for the whole sweep; expected the same "
      "values in every point");
}

absl::StatusOr<SweepPlan> PlanSweep(const Experiment& experiment) {
  SweepPlan plan;
  plan.runs = ExpandRuns(experiment);
  std::set<std::string> warned;
  for (const auto& run : plan.runs) {
    auto c = CheckRun(experiment, run, &warned);
    absl::Status s = c.status();
    if (s.ok() && !plan.checked.empty()) {
      s = SameControl(plan.checked[0].config, c->config);
    }
    if (!s.ok()) {
      return absl::Status(
          s.code(), absl::StrCat("sweep run ", run.name, ": ", s.message()));
    }
    plan.max_nodes = std::max(plan.max_nodes, c->config.cluster.num_nodes);
    plan.checked.push_back(std::move(*c));
  }
  return plan;
}

}  // namespace ckpt
