// libFuzzer target: the config loader. The input is read as a YAML file
// (FlattenYaml, then every entry applied as from a file) and, line by
// line, as key=value overrides, through the same key setters (sizes,
// durations, enums, URIs) the CLI uses. Any outcome but a crash is fine.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_split.h"
#include "common/config_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ckpt::LoadOptions options;
  options.getenv = [](const char*) -> const char* { return nullptr; };
  auto entries = ckpt::FlattenYaml(text, "fuzz.yaml");
  if (entries.ok()) {
    for (const auto& e : *entries) {
      if (!e.list && !e.in_list) {
        options.file_values.push_back({e.key, e.value, "fuzz.yaml"});
      }
    }
    (void)ckpt::LoadConfig(options);
  }
  options.file_values.clear();
  for (auto line : absl::StrSplit(text, '\n')) {
    options.overrides.emplace_back(line);
  }
  (void)ckpt::LoadConfig(options);
  return 0;
}
