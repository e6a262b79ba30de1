// libFuzzer target: a safetensors file's header as a model on storage
// gives it (the user's own model: anyone's bytes), and a model's
// model.safetensors.index.json.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/serving/model_files.h"
#include "common/serving/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  auto n = ckpt::StHeaderLength(file, size, "fuzz/model.safetensors");
  if (n.ok()) {
    (void)ckpt::ParseStHeader(file.substr(8, *n), size,
                              "fuzz/model.safetensors");
  }
  (void)ckpt::ParseStHeader(file, size + 8, "fuzz/header");
  (void)ckpt::ParseModelIndex(file, "fuzz/model.safetensors.index.json");
  return 0;
}
