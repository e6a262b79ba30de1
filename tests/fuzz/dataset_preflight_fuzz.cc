// libFuzzer target: a dataset run's preflight (CheckDatasetBeforeRun) on a
// node's look at the dataset, all of it from the node: the manifest as
// read from storage anyone may have written to, the free space, the
// memory, the file system's name. Whatever it holds, the check answers
// (refusing or not) without crashing, and a dataload with no manifest is
// always refused.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataload_job.h"
#include "common/inspection.h"
#include "coordinator/dataset/dataset_preflight.h"

namespace {

uint64_t Take64(const uint8_t*& data, size_t& size) {
  uint64_t v = 0;
  const size_t n = size < 8 ? size : 8;
  std::memcpy(&v, data, n);
  data += n;
  size -= n;
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  ++data;
  --size;
  ckpt::Config config;
  config.run.workload =
      (flags & 1) ? ckpt::kDatagenWorkload : ckpt::kDataloadWorkload;
  ckpt::DatasetLook look;
  look.manifest_found = (flags & 2) != 0;
  look.free_known = (flags & 4) != 0;
  look.free_bytes = Take64(data, size);
  look.memory_bytes = Take64(data, size);
  look.filesystem = "fuzz\x1b[31m fs";
  look.memory_source = "fuzz";
  look.manifest.assign(reinterpret_cast<const char*>(data), size);
  const size_t nodes = 1 + (flags >> 4);
  const auto s = ckpt::CheckDatasetBeforeRun(config, {look},
                                             {"mem://fuzz/dataset"}, nodes);
  if (config.run.workload == ckpt::kDataloadWorkload && !look.manifest_found &&
      s.ok()) {
    std::abort();
  }
  return 0;
}
