// The only file that includes yaml-cpp.
#include "common/config_loader.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/secrets.h"
#include "common/status_macros.h"
#include "common/text.h"

namespace ckpt {
namespace {

absl::Status Flatten(const YAML::Node& node, const std::string& prefix,
                     const std::string& name, std::vector<YamlEntry>* out) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      std::string k = kv.first.as<std::string>();
      std::string full = prefix.empty() ? k : absl::StrCat(prefix, ".", k);
      RETURN_IF_ERROR(Flatten(kv.second, full, name, out));
    }
    return absl::OkStatus();
  }
  int line = node.Mark().line + 1;
  if (node.IsScalar()) {
    out->push_back({prefix, node.Scalar(), line, false, {}});
    return absl::OkStatus();
  }
  if (node.IsNull()) {
    out->push_back({prefix, "", line, false, {}});
    return absl::OkStatus();
  }
  // A sequence: of scalars (one list entry) or of maps (flattened in order).
  YamlEntry list{prefix, "", line, true, {}};
  for (const auto& item : node) {
    if (item.IsMap()) {
      size_t first = out->size();
      RETURN_IF_ERROR(Flatten(item, prefix, name, out));
      for (size_t i = first; i < out->size(); ++i) (*out)[i].in_list = true;
    } else if (item.IsScalar()) {
      list.items.push_back(item.Scalar());
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ":", item.Mark().line + 1, ": key '", prefix,
                       "': expected a list of values or of maps"));
    }
  }
  if (!list.items.empty() || node.size() == 0) out->push_back(list);
  return absl::OkStatus();
}

absl::Status Apply(Config& config, const std::string& key,
                   const std::string& value, const std::string& where,
                   std::map<std::string, std::string>& sources) {
  const KeyDef* def = FindKey(key);
  if (def == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", UnknownKeyMessage(key)));
  }
  absl::Status s = def->set(config, value);
  if (!s.ok()) {
    std::string shown = def->secret ? "<redacted>" : value;
    std::string alias = def->key == key ? def->env : def->key;
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": ", key, alias.empty() ? "" : absl::StrCat(" (", alias, ")"),
        " = '", shown, "': ", s.message()));
  }
  // A secret's value (auth.token) is scrubbed from every error and log
  // line that might quote it.
  if (def->secret) RegisterSecret(value);
  sources[def->key] = where;
  return absl::OkStatus();
}

// Another tool's variable for a key's setting, read only while the key
// still holds its default value after every source (so a file that writes
// the defaults out, as conf/local-disk.yaml does, leaves them their say):
// the AWS CLI's and SDKs' general names after AWS_ENDPOINT_URL_S3 and
// AWS_REGION (the keys' own variables), and the Google libraries' emulator
// host, which may name no scheme and means no authentication.
struct FallbackEnv {
  const char* key;
  const char* env;
  bool add_http;      // "host:port" -> "http://host:port"
  const char* value;  // set this instead of the variable's value
};
constexpr FallbackEnv kFallbackEnv[] = {
    {"s3.endpoint", "AWS_ENDPOINT_URL", false, nullptr},
    {"s3.region", "AWS_DEFAULT_REGION", false, nullptr},
    {"gcs.endpoint", "STORAGE_EMULATOR_HOST", true, nullptr},
    {"gcs.anonymous", "STORAGE_EMULATOR_HOST", false, "true"},
};

absl::Status ApplyFallbacks(
    const std::function<const char*(const char*)>& getenv_fn,
    LoadedConfig& loaded) {
  static const Config kDefaults;
  for (const FallbackEnv& f : kFallbackEnv) {
    const KeyDef* def = FindKey(f.key);
    if (def == nullptr || def->get(loaded.config) != def->get(kDefaults)) {
      continue;
    }
    const char* v = getenv_fn(f.env);
    if (v == nullptr || *v == '\0') continue;
    std::string value = f.value != nullptr ? f.value : v;
    if (f.add_http && value.find("://") == std::string::npos) {
      value = "http://" + value;
    }
    RETURN_IF_ERROR(Apply(loaded.config, f.key, value,
                          absl::StrCat("environment (", f.env, ")"),
                          loaded.sources));
  }
  return absl::OkStatus();
}

}  // namespace

std::string UnknownKeyMessage(const std::string& key,
                              const std::vector<std::string>& extra) {
  std::vector<std::string> names = AllKeyNames();
  names.insert(names.end(), extra.begin(), extra.end());
  std::string msg = absl::StrCat("unknown key '", key, "'");
  std::string near = ClosestMatch(key, names);
  if (!near.empty()) absl::StrAppend(&msg, "; did you mean '", near, "'?");
  absl::StrAppend(&msg, " (ckptbench keys lists them all)");
  return msg;
}

absl::StatusOr<std::vector<YamlEntry>> ReadYamlFile(const std::string& path,
                                                    const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", path, ": is a directory; expected a YAML file"));
  }
  // Never blocks on a FIFO; an experiment file is small (the sweeps in
  // conf/ are a few KiB).
  constexpr uint64_t kMaxYamlBytes = 16ull << 20;
  auto text = ReadRegularFile(path, kMaxYamlBytes, what);
  if (!text.ok()) return absl::InvalidArgumentError(text.status().message());
  return FlattenYaml(*text, path);
}

absl::StatusOr<std::vector<YamlEntry>> FlattenYaml(const std::string& text,
                                                   const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ":", e.mark.line + 1, ": not valid YAML: ", e.msg));
  }
  std::vector<YamlEntry> out;
  if (root.IsNull()) return out;
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ":1: expected a map of keys at the top level"));
  }
  try {
    RETURN_IF_ERROR(Flatten(root, "", name, &out));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ":", e.mark.line + 1, ": ", e.msg));
  }
  // YAML says keys are unique; parsers differ on which duplicate wins.
  // (Keys repeated across a list's maps are different entries.)
  std::map<std::string, int> first_line;
  for (const auto& e : out) {
    if (e.in_list) continue;
    auto [it, fresh] = first_line.insert({e.key, e.line});
    if (!fresh) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ":", e.line, ": key '", e.key,
                       "' is given twice (first at line ", it->second,
                       "); expected each key once"));
    }
  }
  return out;
}

absl::StatusOr<LoadedConfig> LoadConfig(const LoadOptions& options) {
  LoadedConfig loaded;
  for (const auto& k : ConfigKeys()) loaded.sources[k.key] = "default";
  auto getenv_fn = options.getenv;
  if (!getenv_fn) getenv_fn = [](const char* n) { return std::getenv(n); };

  if (!options.yaml_path.empty()) {
    ASSIGN_OR_RETURN(auto entries, ReadYamlFile(options.yaml_path, "--config"));
    for (const auto& e : entries) {
      if (e.key.rfind("sweep.", 0) == 0 || e.key.rfind("defaults", 0) == 0 ||
          e.key == "repeat") {
        return absl::InvalidArgumentError(absl::StrCat(
            options.yaml_path, ":", e.line, ": key '", e.key,
            "': this is an experiment file (sweep:, defaults:, repeat:); run "
            "it with `ckptbench sweep ",
            options.yaml_path, "`"));
      }
    }
    std::map<std::string, int> canonical_line;  // an alias and its key
    for (const auto& e : entries) {
      if (const KeyDef* def = FindKey(e.key)) {
        auto [it, fresh] = canonical_line.insert({def->key, e.line});
        if (!fresh) {
          return absl::InvalidArgumentError(
              absl::StrCat(options.yaml_path, ":", e.line, ": key '", e.key,
                           "' sets ", def->key, ", already set at line ",
                           it->second, "; expected each key once"));
        }
      }
      if (e.list || e.in_list) {
        return absl::InvalidArgumentError(
            absl::StrCat(options.yaml_path, ":", e.line, ": key '", e.key,
                         "': expected a single value, found a list"));
      }
      RETURN_IF_ERROR(Apply(loaded.config, e.key, e.value,
                            absl::StrCat(options.yaml_path, ":", e.line),
                            loaded.sources));
    }
  }
  for (const auto& v : options.file_values) {
    RETURN_IF_ERROR(
        Apply(loaded.config, v.key, v.value, v.where, loaded.sources));
  }
  for (const auto& k : ConfigKeys()) {
    if (k.env.empty()) continue;
    const char* v = getenv_fn(k.env.c_str());
    if (v == nullptr) continue;
    RETURN_IF_ERROR(
        Apply(loaded.config, k.env, v, "environment", loaded.sources));
  }
  for (const auto& o : options.overrides) {
    size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "command line: '", o, "': expected key=value, e.g. NUM_LAYERS=4"));
    }
    RETURN_IF_ERROR(Apply(loaded.config, o.substr(0, eq), o.substr(eq + 1),
                          "command line", loaded.sources));
  }
  for (const auto& v : options.final_values) {
    RETURN_IF_ERROR(
        Apply(loaded.config, v.key, v.value, v.where, loaded.sources));
  }
  RETURN_IF_ERROR(ApplyFallbacks(getenv_fn, loaded));
  return loaded;
}

}  // namespace ckpt
