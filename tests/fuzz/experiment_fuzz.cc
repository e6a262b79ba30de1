// libFuzzer target: the experiment file reader behind `ckptbench sweep`
// (groups under defaults:, sweep:, repeat:, prepare:, smoke:), read plain
// and with --smoke, then the runs it expands to and their configuration
// sources. Any outcome but a crash (or undefined behaviour) is fine.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "common/experiment.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/ckptbench-fuzz-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  const std::string path = dir + "/e.yaml";
  {
    std::ofstream out(path, std::ios::trunc | std::ios::binary);
    out.write(reinterpret_cast<const char*>(data),
              static_cast<std::streamsize>(size));
  }
  for (const bool smoke : {false, true}) {
    auto e = ckpt::LoadExperiment(path, {}, smoke);
    if (!e.ok()) continue;
    if (ckpt::PointCount(*e) * e->repeat > 256) continue;
    for (const auto& run : ckpt::ExpandRuns(*e)) {
      (void)ckpt::RunLoadOptions(*e, run);
    }
  }
  return 0;
}
