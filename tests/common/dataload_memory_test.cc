// What a data loader's plan holds per node (common/dataset/dataload_memory.h),
// worked by hand, and the refusal that names the bytes, the memory and the
// key; an epoch that leaves a rank nothing (common/dataset/epoch_order.h); and
// locations that overlap by whole components (a dataset over its
// checkpoints or results).
#include "common/dataset/dataload_memory.h"

#include <gtest/gtest.h>

#include "common/dataset/datagen_job.h"
#include "common/dataset/dataset_options.h"
#include "common/dataset/epoch_order.h"
#include "common/storage_uri.h"
#include "coordinator/dataset/dataset_config_checks.h"

namespace ckpt {
namespace {

TEST(DataloadMemory, TheFootprintOfEachKindOfDatasetWorkedByHand) {
  DataloadShape tar;
  tar.samples = 1000;
  tar.objects = 10;
  tar.name_bytes = 36;
  // 4 B per sample offset, 16 B per shard, each shard's path (64 + 36)
  // and a bit per object (10 / 8 = 1 B).
  EXPECT_EQ(EstimateDataloadMemory(tar).node_bytes,
            1000 * 4 + 10 * 16 + 10 * 100 + 1);
  EXPECT_EQ(EstimateDataloadMemory(tar).coordinator_bytes, 10u * 16);
  DataloadShape files = tar;
  files.format = DatasetFormat::kFiles;
  files.objects = 1000;
  EXPECT_EQ(EstimateDataloadMemory(files).node_bytes, 1000 * 100 + 125);
  DataloadShape listed = tar;
  listed.listed = true;
  // A ListedObject (96 + name) per shard, 20 B per sample and 8 per shard
  // of the member index, and the paths.
  EXPECT_EQ(EstimateDataloadMemory(listed).node_bytes,
            10 * (96 + 36) + 1000 * 20 + 10 * 8 + 10 * 100 + 1);
  // Iterable: the node's share of the objects (here half), 4 B each in the
  // workers' lists.
  DataloadShape iterable = files;
  iterable.access = DataAccess::kIterable;
  iterable.ranks_per_node = 1;
  iterable.world = 2;
  EXPECT_EQ(EstimateDataloadMemory(iterable).node_bytes,
            501 * 4 + 501 * 100 + 125);
  // The key's maximum, one file per sample: past 100 GiB, and no count
  // wraps.
  files.samples = files.objects = 1ull << 30;
  EXPECT_GT(EstimateDataloadMemory(files).node_bytes, 100ull << 30);
  files.samples = files.objects = UINT64_MAX / 2;
  EXPECT_EQ(EstimateDataloadMemory(files).node_bytes, UINT64_MAX);
}

TEST(DataloadMemory, APlanPast80PercentIsRefusedNamingBytesMemoryAndKey) {
  DataloadShape s;
  s.format = DatasetFormat::kFiles;
  s.samples = s.objects = 1ull << 30;
  s.name_bytes = 36;
  const DataloadFootprint f = EstimateDataloadMemory(s);
  absl::Status refused = CheckDataloadMemory(
      f, true, {8ull << 30, "MemAvailable"}, "dataset.samples 1073741824");
  ASSERT_TRUE(absl::IsFailedPrecondition(refused)) << refused;
  EXPECT_NE(refused.message().find("about 100.1"), std::string::npos)
      << refused;
  EXPECT_NE(refused.message().find("80% of the 8.00 GiB available there "
                                   "(MemAvailable)"),
            std::string::npos)
      << refused;
  EXPECT_NE(refused.message().find("dataset.samples 1073741824"),
            std::string::npos);
  EXPECT_TRUE(
      CheckDataloadMemory(f, true, {1ull << 40, "MemAvailable"}, "").ok());
  EXPECT_TRUE(CheckDataloadMemory(f, true, {0, ""}, "").ok());  // unknown
}

TEST(EveryRankReads, AShareOfNothingIsRefusedNamingTheCounts) {
  EXPECT_TRUE(CheckEveryRankReads(4, 4, 4, false, true, "ds").ok());
  absl::Status s = CheckEveryRankReads(3, 3, 4, false, true, "ds");
  EXPECT_NE(s.message().find("ds holds 3 sample(s) for 4 ranks"),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("dataload.drop_last=false"), std::string::npos);
  // Without drop_last the sampler pads: every rank gets one.
  EXPECT_TRUE(CheckEveryRankReads(3, 3, 4, false, false, "ds").ok());
  EXPECT_FALSE(CheckEveryRankReads(0, 0, 1, false, false, "ds").ok());
  // Iterable: whole objects, one per rank at least.
  s = CheckEveryRankReads(100, 3, 4, true, true, "ds");
  EXPECT_NE(s.message().find("1 rank(s) would read nothing"), std::string::npos)
      << s;
  EXPECT_TRUE(CheckEveryRankReads(100, 4, 4, true, true, "ds").ok());
}

TEST(LocationsOverlap, ByWholeComponentsAfterFolding) {
  EXPECT_TRUE(LocationsOverlap("/data/ds", "/data/ds"));
  EXPECT_TRUE(LocationsOverlap("/data/ds", "/data/ds/checkpoints"));
  EXPECT_TRUE(LocationsOverlap("/data/ds/res", "/data/ds/"));
  EXPECT_TRUE(LocationsOverlap("/data/x/../ds", "file:///data/ds/checkpoints"));
  EXPECT_FALSE(LocationsOverlap("/data/ds", "/data/ds2"));
  EXPECT_FALSE(LocationsOverlap("/data/datasets/d", "/data/checkpoints"));
  EXPECT_TRUE(LocationsOverlap("s3://b/p", "s3://b/p/checkpoints"));
  EXPECT_FALSE(LocationsOverlap("s3://b/p", "s3://b/p2"));
  EXPECT_FALSE(LocationsOverlap("s3://b/p", "gs://b/p"));
}

// A dataset run's results under its dataset's prefix, or holding it, on an
// object store as on a path, are refused before anything is written.
TEST(DatasetApartFromResults, AResultsPrefixInsideTheDatasetIsRefused) {
  Config c;
  c.run.workload = kDatagenWorkload;
  DatasetOf(c).path = "s3://b/ds";
  for (const char* inside : {"s3://b/ds/results", "s3://b/ds", "s3://b"}) {
    const absl::Status s = CheckDatasetApartFromResults(c, inside);
    EXPECT_FALSE(s.ok()) << inside;
    EXPECT_NE(s.message().find("overlap"), std::string::npos) << s;
  }
  EXPECT_TRUE(CheckDatasetApartFromResults(c, "s3://b/results").ok());
  c.run.workload = kCheckpointWorkload;  // no dataset
  EXPECT_TRUE(CheckDatasetApartFromResults(c, "s3://b/ds/results").ok());
}

}  // namespace
}  // namespace ckpt
