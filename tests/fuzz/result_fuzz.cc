// libFuzzer target: the result.json reader behind `report` and `compare`
// (LoadSweepDir on a run directory, then the per-point statistics every
// output shares, the comparison table, the HTML report with each
// workload's registered part, and the points' tables at the end of a sweep
// with each workload's own).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "report/compare.h"
#include "report/html_report.h"
#include "report/sweep_data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/ckptbench-fuzz-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  {
    std::ofstream out(dir + "/result.json", std::ios::trunc | std::ios::binary);
    out.write(reinterpret_cast<const char*>(data),
              static_cast<std::streamsize>(size));
  }
  auto loaded = ckpt::LoadSweepDir(dir);
  if (!loaded.ok()) return 0;
  (void)ckpt::ByPoint(*loaded);
  (void)ckpt::HtmlReport(*loaded);
  (void)ckpt::SweepPointsTable(*loaded);
  (void)ckpt::CompareTable(ckpt::ComparePoints(*loaded, *loaded), "a", "b");
  return 0;
}
