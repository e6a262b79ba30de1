// libFuzzer target: the .metadata reader (a streaming SAX parse of a file
// that may come from anywhere on a shared bucket).
#include <cstddef>
#include <cstdint>
#include <string>

#include "coordinator/checkpoint/metadata_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)ckpt::ParseMetadata(text, "fuzz/.metadata");
  return 0;
}
