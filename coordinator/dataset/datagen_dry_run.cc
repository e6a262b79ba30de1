#include "coordinator/dataset/datagen_dry_run.h"

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/dataset/dataset_layout.h"
#include "common/dataset/dataset_options.h"
#include "common/text.h"

namespace ckpt {

std::string DescribeDatasetPrepare(const Config& config,
                                   const std::optional<DatasetLook>& look,
                                   bool* fits) {
  const DatasetSpec spec = DatasetSpecOf(config);
  const DatasetTotals totals = ComputeTotals(spec);
  std::string line = absl::StrCat(
      "prepare: datagen writes ", totals.objects, " objects, ",
      FormatBytes(totals.bytes), " (", spec.samples, " samples), to ",
      EscapeForTerminal(DatasetPath(config)), " unless its manifest is there");
  if (!look) return line;
  if (look->manifest_found) return absl::StrCat(line, " (it is: reused)");
  if (!look->free_known) return line;
  if (look->free_bytes < totals.bytes) {
    *fits = false;
    return absl::StrCat(line, ": DOES NOT FIT, its file system has ",
                        FormatBytes(look->free_bytes),
                        " free (the run would refuse it: a smaller dataset, "
                        "dataset.samples or dataset.sample_bytes, or another "
                        "storage.path)");
  }
  return absl::StrCat(line, " (", FormatBytes(look->free_bytes),
                      " free there)");
}

}  // namespace ckpt
