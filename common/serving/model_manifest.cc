#include "common/serving/model_manifest.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/model_presets.h"
#include "common/text.h"

namespace ckpt {
namespace {

using json = nlohmann::json;

// The preset's name in a manifest: model.name's, which is never long.
constexpr size_t kMaxPresetName = 256;

absl::Status Bad(std::string_view shown, std::string_view what) {
  return absl::DataLossError(absl::StrCat(
      "the model manifest ", std::string(shown), " ", std::string(what)));
}

}  // namespace

StDtype StDtypeOf(ModelDtype dtype) {
  switch (dtype) {
    case ModelDtype::kBf16:
      return StDtype::kBf16;
    case ModelDtype::kFp16:
      return StDtype::kF16;
    case ModelDtype::kFp32:
      return StDtype::kF32;
  }
  return StDtype::kBf16;
}

absl::StatusOr<GeneratedFiles> GeneratedModelFiles(const GeneratedModel& m) {
  absl::StatusOr<ModelPreset> preset = MakePreset(m.preset, m.num_layers);
  if (!preset.ok()) return preset.status();
  if (preset->weights.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model.name = ", m.preset,
        ": expected a preset with tensors (a Llama or the transformer); the "
        "MLPerf presets have sizes, not tensors"));
  }
  if (m.file_bytes == 0) {
    return absl::InvalidArgumentError("serve.file_bytes: expected > 0");
  }
  GeneratedFiles out;
  out.files = ShardModel(ModelTensors(preset->weights, StDtypeOf(m.dtype)),
                         m.file_bytes);
  out.head_dim = preset->head_dim;
  if (preset->llama) {
    out.config = LlamaConfigJson(*preset->llama, StDtypeOf(m.dtype), m.preset);
  }
  for (const ModelFile& f : out.files) out.bytes += f.Size();
  return out;
}

std::string ModelManifestToJson(const ModelManifest& m) {
  json j;
  j["format"] = kModelManifestFormat;
  j["preset"] = m.model.preset;
  j["num_layers"] = m.model.num_layers;
  j["dtype"] = m.model.dtype;
  j["file_bytes"] = m.model.file_bytes;
  j["seed"] = m.model.seed;
  j["files"] = m.files;
  j["bytes"] = m.bytes;
  j["run_id"] = m.run_id;
  j["created_unix_ns"] = m.created_unix_ns;
  return j.dump(2) + "\n";
}

absl::StatusOr<ModelManifest> ModelManifestFromJson(std::string_view text,
                                                    std::string_view shown) {
  if (text.size() > kMaxModelManifestBytes) {
    return Bad(shown,
               absl::StrCat("is ", text.size(), " bytes; expected at most ",
                            kMaxModelManifestBytes));
  }
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Bad(shown, "is not a JSON object");
  }
  const auto format = j.find("format");
  if (format == j.end() || !format->is_string() ||
      format->get<std::string>() != kModelManifestFormat) {
    return Bad(shown, absl::StrCat("is not of format \"", kModelManifestFormat,
                                   "\", the one this build reads"));
  }
  auto uint = [&](const char* key, uint64_t* out) -> absl::Status {
    const auto v = j.find(key);
    if (v == j.end() || !v->is_number_unsigned()) {
      return Bad(shown, absl::StrCat("has no \"", key, "\", a count"));
    }
    *out = v->get<uint64_t>();
    return absl::OkStatus();
  };
  auto str = [&](const char* key, size_t most,
                 std::string* out) -> absl::Status {
    const auto v = j.find(key);
    if (v == j.end() || !v->is_string() ||
        v->get_ref<const std::string&>().size() > most ||
        HasControlCharacter(v->get_ref<const std::string&>())) {
      return Bad(shown, absl::StrCat("has no \"", key, "\", a name of at most ",
                                     most, " printable bytes"));
    }
    *out = v->get<std::string>();
    return absl::OkStatus();
  };
  ModelManifest m;
  uint64_t layers = 0;
  for (absl::Status s :
       {str("preset", kMaxPresetName, &m.model.preset),
        uint("num_layers", &layers), uint("file_bytes", &m.model.file_bytes),
        uint("seed", &m.model.seed), uint("files", &m.files),
        uint("bytes", &m.bytes), str("run_id", kMaxPresetName, &m.run_id)}) {
    if (!s.ok()) return s;
  }
  if (layers > 1'000'000) return Bad(shown, "has num_layers past 1000000");
  m.model.num_layers = static_cast<int>(layers);
  const auto dtype = j.find("dtype");
  std::optional<ModelDtype> d;
  if (dtype != j.end() && dtype->is_string()) {
    d = ParseKind<ModelDtype>(dtype->get<std::string>());
  }
  if (!d) {
    return Bad(shown, absl::StrCat("has no \"dtype\", one of ",
                                   KindNames<ModelDtype>()));
  }
  m.model.dtype = *d;
  const auto created = j.find("created_unix_ns");
  if (created != j.end() && created->is_number_integer()) {
    m.created_unix_ns = created->get<int64_t>();
  }
  return m;
}

}  // namespace ckpt
