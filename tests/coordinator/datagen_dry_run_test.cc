// What a sweep's dry run says of a point's `prepare: datagen`
// (coordinator/dataset/datagen_dry_run.h), registered as datagen's
// PrepareDescription: the dataset's objects, bytes and target, and what the
// look at the target found.
#include "coordinator/dataset/datagen_dry_run.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/config_keys.h"
#include "common/dataset/dataset_layout.h"
#include "common/dataset/dataset_options.h"
#include "coordinator/workload_registry.h"

namespace ckpt {
namespace {

Config DryRunDataset(const std::string& path) {
  Config c;
  DatasetOf(c).path = path;
  DatasetOf(c).samples = 1000;
  DatasetOf(c).sample_bytes = 4096;
  return c;
}

std::string ExpectedLine(const Config& c, const std::string& shown) {
  const DatasetTotals t = ComputeTotals(DatasetSpecOf(c));
  return absl::StrCat("prepare: datagen writes ", t.objects, " objects, ",
                      FormatBytes(t.bytes), " (1000 samples), to ", shown,
                      " unless its manifest is there");
}

TEST(DatagenDryRun, SaysWhatItWritesAndWhatTheLookFound) {
  const Config c = DryRunDataset("/data/ds");
  const uint64_t bytes = ComputeTotals(DatasetSpecOf(c)).bytes;
  const std::string line = ExpectedLine(c, "/data/ds");
  bool fits = true;
  // No look (an object store): the line alone.
  EXPECT_EQ(DescribeDatasetPrepare(c, std::nullopt, &fits), line);
  DatasetLook look;
  EXPECT_EQ(DescribeDatasetPrepare(c, look, &fits), line);  // free unknown
  look.free_known = true;
  look.free_bytes = bytes;
  EXPECT_EQ(DescribeDatasetPrepare(c, look, &fits),
            absl::StrCat(line, " (", FormatBytes(bytes), " free there)"));
  EXPECT_TRUE(fits);
  look.manifest_found = true;  // there already: the free space is moot
  look.free_bytes = 1;
  EXPECT_EQ(DescribeDatasetPrepare(c, look, &fits),
            absl::StrCat(line, " (it is: reused)"));
  EXPECT_TRUE(fits);
  look.manifest_found = false;
  look.free_bytes = bytes - 1;
  EXPECT_EQ(DescribeDatasetPrepare(c, look, &fits),
            absl::StrCat(line, ": DOES NOT FIT, its file system has ",
                         FormatBytes(bytes - 1),
                         " free (the run would refuse it: a smaller dataset, "
                         "dataset.samples or dataset.sample_bytes, or another "
                         "storage.path)"));
  EXPECT_FALSE(fits);
}

TEST(DatagenDryRun, EscapesTheTargetForTheTerminal) {
  const Config c = DryRunDataset("/data/\x1b[2Jds");
  bool fits = true;
  const std::string text = DescribeDatasetPrepare(c, std::nullopt, &fits);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("/data/"), std::string::npos) << text;
}

TEST(DatagenDryRun, IsWhatTheRegistryHasDatagenSayOfAPrepare) {
  const WorkloadRegistry& builtin = WorkloadRegistry::BuiltIn();
  EXPECT_EQ(builtin.PrepareDescriptionOf("checkpoint"), nullptr);
  EXPECT_EQ(builtin.PrepareDescriptionOf("dataload"), nullptr);
  EXPECT_EQ(builtin.PrepareDescriptionOf("nothing"), nullptr);
  const PrepareDescription* datagen = builtin.PrepareDescriptionOf("datagen");
  ASSERT_NE(datagen, nullptr);
  const Config c = DryRunDataset("/data/ds");
  bool fits = true;
  EXPECT_EQ((*datagen)(c, std::nullopt, &fits), ExpectedLine(c, "/data/ds"));
  // A workload added to a copy says its own.
  RunWorkloadEntry maker("maker", [] { return nullptr; });
  maker.describe_prepare =
      [](const Config&, const std::optional<DatasetLook>& look, bool* fits) {
        *fits = look.has_value();
        return std::string("prepare: maker makes it");
      };
  auto with = builtin.With(std::move(maker));
  ASSERT_TRUE(with.ok()) << with.status();
  const PrepareDescription* made = with->PrepareDescriptionOf("maker");
  ASSERT_NE(made, nullptr);
  EXPECT_EQ((*made)(c, std::nullopt, &fits), "prepare: maker makes it");
  EXPECT_FALSE(fits);
}

// What an experiment's prepare: accepts (the workloads' choices) and what
// the registry describes in a dry run are registered apart: each workload
// that prepares has both.
TEST(DatagenDryRun, EveryWorkloadThatPreparesIsDescribedInADryRun) {
  const WorkloadRegistry& builtin = WorkloadRegistry::BuiltIn();
  int preparers = 0;
  for (const WorkloadChoice& w : WorkloadChoices()) {
    EXPECT_EQ(w.prepares.empty(),
              builtin.PrepareDescriptionOf(w.name) == nullptr)
        << w.name;
    preparers += w.prepares.empty() ? 0 : 1;
  }
  EXPECT_EQ(preparers, 1);
}

}  // namespace
}  // namespace ckpt
