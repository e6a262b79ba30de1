// `ckptbench plan` (the checkpoint plan, no I/O) and `ckptbench keys` (every
// configuration key as TSV; with --json the whole interface: commands,
// flags, keys and every other environment variable read).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "absl/strings/str_format.h"
#include "common/config_loader.h"
#include "common/env_vars.h"
#include "common/log.h"
#include "common/model_presets.h"
#include "coordinator/config_checks.h"
#include "coordinator/workload_registry.h"
#include "main/commands.h"
#include "main/run_support.h"

namespace ckpt {

int PlanCommand(const CliArgs& args) {
  if (args.list) {
    for (const auto& name : PresetNames()) {
      auto p = MakePreset(name, 10);
      std::printf("%-12s %s\n", name.c_str(),
                  p.ok() ? p->description.c_str() : "");
    }
    return 0;
  }
  auto loaded = LoadConfigFromArgs(args);
  if (!loaded.ok()) {
    PrintError(std::string(loaded.status().message()));
    return 2;
  }
  if (auto s = ValidateConfig(loaded->config, /*need_storage=*/false);
      !s.ok()) {
    PrintError(std::string(s.message()));
    return 2;
  }
  auto text =
      WorkloadRegistry::BuiltIn().DescribePlan(loaded->config, args.per_rank);
  if (!text.ok()) {
    PrintError(std::string(text.status().message()));
    return 2;
  }
  std::fputs(text->c_str(), stdout);
  return 0;
}

int KeysCommand(const CliArgs& args) {
  if (args.json) {
    nlohmann::ordered_json j;
    j["schema"] = "ckptbench.interface/v1";
    j["commands"] = CliCommands();
    nlohmann::ordered_json flags = nlohmann::ordered_json::array();
    for (const auto& f : CliFlags()) {
      flags.push_back(
          {{"name", f.name}, {"takes_value", f.takes_value}, {"help", f.help}});
    }
    j["flags"] = flags;
    nlohmann::ordered_json keys = nlohmann::ordered_json::array();
    for (const auto& k : ConfigKeys()) {
      keys.push_back({{"key", k.key},
                      {"env", k.env},
                      {"expected", k.expected},
                      {"secret", k.secret}});
    }
    j["keys"] = keys;
    nlohmann::ordered_json env = nlohmann::ordered_json::array();
    for (const auto& v : OtherEnvVars()) {
      env.push_back({{"name", v.name}, {"meaning", v.meaning}});
    }
    j["environment"] = env;
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  // Tab-separated, one key per line: key, env alias, expected, description.
  std::printf("key\tenv\texpected\tdescription\n");
  for (const auto& k : ConfigKeys()) {
    std::printf("%s\t%s\t%s\t%s\n", k.key.c_str(), k.env.c_str(),
                k.expected.c_str(), k.description.c_str());
  }
  return 0;
}

}  // namespace ckpt
