#include "common/serving/model_files.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/names.h"
#include "common/status_macros.h"
#include "common/text.h"

namespace ckpt {
namespace {

using nlohmann::json;

// The caller's tensors (a preset's): their sizes fit (StHeaderBytes).
uint64_t TensorBytes(const StTensor& t) {
  return StShapeBytes(t.dtype, t.shape).value();
}

std::string FileName(size_t index, size_t count) {
  if (count == 1) return "model.safetensors";
  char name[64];
  std::snprintf(name, sizeof(name), "model-%05zu-of-%05zu.safetensors",
                index + 1, count);
  return name;
}

}  // namespace

std::vector<StTensor> ModelTensors(const std::vector<TensorSpec>& preset,
                                   StDtype dtype) {
  std::vector<StTensor> out;
  out.reserve(preset.size());
  for (const TensorSpec& s : preset) {
    StTensor t;
    t.name = s.name;
    t.dtype = dtype;
    t.shape = s.shape;
    out.push_back(std::move(t));
  }
  return out;
}

uint64_t ModelFile::Size() const {
  return header.size() + (tensors.empty() ? 0 : tensors.back().end);
}

std::vector<ModelFile> ShardModel(const std::vector<StTensor>& tensors,
                                  uint64_t max_file_bytes) {
  // As split_state_dict_into_shards_factory: an oversized tensor's file is
  // added at once, before the file being filled.
  std::vector<std::vector<StTensor>> shards;
  std::vector<StTensor> current;
  uint64_t current_bytes = 0;
  for (const StTensor& t : tensors) {
    const uint64_t bytes = TensorBytes(t);
    if (bytes > max_file_bytes) {
      shards.push_back({t});
      continue;
    }
    if (current_bytes + bytes > max_file_bytes) {
      shards.push_back(std::move(current));
      current.clear();
      current_bytes = 0;
    }
    current.push_back(t);
    current_bytes += bytes;
  }
  if (!current.empty()) shards.push_back(std::move(current));
  std::vector<ModelFile> files(shards.size());
  for (size_t i = 0; i < shards.size(); ++i) {
    ModelFile& f = files[i];
    f.name = FileName(i, shards.size());
    f.tensors = std::move(shards[i]);
    // safetensors' prepare(): by dtype, descending in its enum's order,
    // then by name.
    std::stable_sort(f.tensors.begin(), f.tensors.end(),
                     [](const StTensor& a, const StTensor& b) {
                       return a.dtype != b.dtype ? a.dtype > b.dtype
                                                 : a.name < b.name;
                     });
    f.header = StHeaderBytes(&f.tensors, {{"format", "pt"}});
  }
  return files;
}

std::string ModelIndexJson(const std::vector<ModelFile>& files) {
  nlohmann::ordered_json map = nlohmann::ordered_json::object();
  uint64_t total = 0;
  for (const ModelFile& f : files) {
    for (const StTensor& t : f.tensors) {
      map[t.name] = f.name;
      total += t.Bytes();
    }
  }
  nlohmann::ordered_json j;
  j["metadata"] = {{"total_size", total}};
  j["weight_map"] = std::move(map);
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string LlamaConfigJson(const LlamaShape& shape, StDtype dtype,
                            std::string_view preset) {
  const char* torch_dtype = dtype == StDtype::kBf16  ? "bfloat16"
                            : dtype == StDtype::kF16 ? "float16"
                                                     : "float32";
  nlohmann::ordered_json j;
  j["architectures"] = {"LlamaForCausalLM"};
  j["model_type"] = "llama";
  j["hidden_size"] = shape.hidden;
  j["intermediate_size"] = shape.ffn;
  j["num_hidden_layers"] = shape.layers;
  j["num_attention_heads"] = shape.heads;
  j["num_key_value_heads"] = shape.kv_heads;
  j["head_dim"] = shape.hidden / shape.heads;
  j["vocab_size"] = shape.vocab;
  j["hidden_act"] = "silu";
  j["rms_norm_eps"] = 1e-05;
  j["attention_bias"] = false;
  j["mlp_bias"] = false;
  j["tie_word_embeddings"] = false;
  j["torch_dtype"] = torch_dtype;
  j["ckptbench_preset"] = std::string(preset);
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {

constexpr char kIndexShape[] =
    "expected {\"metadata\": {\"total_size\": ...}, \"weight_map\": {...}}";

// The index as a JSON object, at most kMaxModelIndexBytes and three levels
// deep: anything deeper is dropped as it is read (a 16 MiB nest of arrays
// would be a gigabyte of nodes) and refused.
absl::StatusOr<json> ParseBounded(std::string_view text,
                                  const std::string& where) {
  if (text.size() > kMaxModelIndexBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", text.size(), " bytes; expected at most ",
                     kMaxModelIndexBytes, " for a model's index"));
  }
  bool too_deep = false;
  json j = json::parse(
      text,
      [&too_deep](int depth, json::parse_event_t event, json&) {
        if (depth > 2 && (event == json::parse_event_t::object_start ||
                          event == json::parse_event_t::array_start)) {
          too_deep = true;
          return false;
        }
        return true;
      },
      /*allow_exceptions=*/false);
  if (too_deep) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": nested deeper than an index is; ", kIndexShape));
  }
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": not a JSON object; ", kIndexShape));
  }
  return j;
}

}  // namespace

absl::StatusOr<ModelIndex> ParseModelIndex(std::string_view text,
                                           std::string_view file) {
  const std::string where = EscapeForTerminal(file);
  ASSIGN_OR_RETURN(json j, ParseBounded(text, where));
  ModelIndex index;
  auto meta = j.find("metadata");
  if (meta != j.end() && meta->is_object()) {
    // What loaders never read (transformers does not): a whole number
    // kept, anything else left as unknown.
    auto total = meta->find("total_size");
    if (total != meta->end() && total->is_number_unsigned()) {
      index.total_size = total->get<uint64_t>();
    }
  }
  auto map = j.find("weight_map");
  if (map == j.end() || !map->is_object() || map->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": no weight_map; expected an object of tensor: file"));
  }
  std::set<std::string> files;
  for (auto it = map->begin(); it != map->end(); ++it) {
    const std::string& tensor = it.key();
    const std::string shown = EscapeForTerminal(tensor.substr(0, 80));
    if (tensor.empty() || tensor.size() > kMaxStName ||
        HasControlCharacter(tensor)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": weight_map has the tensor name '", shown,
                       "'; expected 1 to ", kMaxStName,
                       " bytes without control characters"));
    }
    if (!it->is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": weight_map['", shown, "'] is ",
                       it->type_name(), "; expected a file's name"));
    }
    const std::string name = it->get<std::string>();
    if (absl::Status st = CheckEntryName(
            name, absl::StrCat("file of tensor '", shown, "' in ", where));
        !st.ok()) {
      return st;
    }
    if (!absl::EndsWith(name, ".safetensors")) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": weight_map['", shown, "'] is '", EscapeForTerminal(name),
          "'; expected a .safetensors file"));
    }
    files.insert(name);
    index.weight_map.emplace_back(tensor, name);
  }
  index.files.assign(files.begin(), files.end());
  return index;
}

}  // namespace ckpt
