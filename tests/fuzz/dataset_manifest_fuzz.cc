// libFuzzer target: a dataset's manifest (ckptbench-dataset.json), read
// from storage anyone may have written to. What it accepts must write back
// to a manifest that reads as the same dataset.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/dataset/dataset_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto m = ckpt::DatasetManifestFromJson(text, "fuzz/ckptbench-dataset.json");
  if (!m.ok()) return 0;
  auto again = ckpt::DatasetManifestFromJson(ckpt::DatasetManifestToJson(*m),
                                             "fuzz/again.json");
  if (!again.ok() || !(again->spec == m->spec)) std::abort();
  return 0;
}
