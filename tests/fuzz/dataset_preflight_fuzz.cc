// libFuzzer target: a dataset run's preflight (CheckDatasetBeforeRun) on a
// node's look at the dataset, all of it from the node: the manifest as
// read from storage anyone may have written to, the free space, the
// memory, the file system's name. Whatever it holds, the check answers
// (refusing or not) without crashing, and a dataload with no manifest is
// always refused. Then what a sweep's dry run says of a datagen on that
// look (DescribeDatasetPrepare).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_layout.h"
#include "common/dataset/dataset_options.h"
#include "common/inspection.h"
#include "coordinator/dataset/datagen_dry_run.h"
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
  // The same look as `sweep --dry-run` takes it, on a target whose name
  // holds an escape sequence: the line names it escaped, and only a look
  // with room for less than the dataset says it does not fit.
  ckpt::DatasetOf(config).path = "/fuzz/\x1b[2Jdataset";
  bool fits = true;
  const std::string line = ckpt::DescribeDatasetPrepare(config, look, &fits);
  const uint64_t bytes = ckpt::ComputeTotals(ckpt::DatasetSpecOf(config)).bytes;
  const bool short_of_room =
      !look.manifest_found && look.free_known && look.free_bytes < bytes;
  if (line.find('\x1b') != std::string::npos || fits == short_of_room) {
    std::abort();
  }
  return 0;
}
