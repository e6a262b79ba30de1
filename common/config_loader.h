// Builds a Config from its sources with precedence
//   command-line key=value > environment > YAML file > defaults,
// then, for a key still at its default value, another tool's variable for
// the same setting (kFallbackEnv in config_loader.cc: AWS_ENDPOINT_URL,
// AWS_DEFAULT_REGION, STORAGE_EMULATOR_HOST). This is the only place the
// backend settings are read from the environment: a node uses what its
// coordinator's configuration resolved (BackendOptions). Credentials stay
// each process's own (its credential chains read their variables).
// Keys are dotted YAML names or their env-var aliases. Every error names
// the source (file:line, environment, command line), the key, the value and
// what was expected, with a "did you mean" for unknown keys.
// Stateless; thread-safe.
#ifndef CKPTBENCH_COMMON_CONFIG_LOADER_H_
#define CKPTBENCH_COMMON_CONFIG_LOADER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"

namespace ckpt {

// A key's value with where it came from ("FILE:LINE", "sweep ...").
struct SourcedValue {
  std::string key;
  std::string value;
  std::string where;
};

struct LoadOptions {
  std::string yaml_path;               // "" = no file
  std::vector<std::string> overrides;  // "key=value" from the command line
  // Environment lookup; defaults to ::getenv. Tests inject their own.
  std::function<const char*(const char*)> getenv;
  // Applied after yaml_path and before the environment, in order (an
  // experiment's group files and its own keys).
  std::vector<SourcedValue> file_values;
  // Applied after the overrides, in order (a sweep point's values).
  std::vector<SourcedValue> final_values;
};

struct LoadedConfig {
  Config config;
  // Where each key's value came from: "default", "FILE:LINE", "env",
  // "command line".
  std::map<std::string, std::string> sources;
};

absl::StatusOr<LoadedConfig> LoadConfig(const LoadOptions& options);

// Parses YAML text (nested maps of scalars) into (dotted key, value, line)
// triples. A list of scalars is one entry with `list` set and its `items`;
// a list of maps is flattened under its key, in order (an experiment's
// `defaults:`). Exposed for tests and experiments.
struct YamlEntry {
  std::string key;
  std::string value;
  int line = 0;
  bool list = false;
  std::vector<std::string> items;
  bool in_list = false;  // flattened from an item of a list of maps
};
absl::StatusOr<std::vector<YamlEntry>> FlattenYaml(const std::string& text,
                                                   const std::string& name);
// FlattenYaml of a file; `what` names it in errors ("--config PATH: cannot
// open the file").
absl::StatusOr<std::vector<YamlEntry>> ReadYamlFile(const std::string& path,
                                                    const std::string& what);

// "unknown key 'K'; did you mean 'X'? (ckptbench keys lists them all)",
// the suggestion drawn from every key name and env alias plus `extra`.
std::string UnknownKeyMessage(const std::string& key,
                              const std::vector<std::string>& extra = {});

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CONFIG_LOADER_H_
