// `ckptbench datagen` through the coordinator and in-process nodes: the
// dataset written whole and byte-exact (shared storage split between nodes,
// node-local disks each a replica), its manifest last, a matching one
// reused and a different one refused, and a removal that takes exactly
// what the manifest names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataset_manifest.h"
#include "common/dataset/dataset_options.h"
#include "common/error_kind.h"
#include "coordinator/checkpoint/planner.h"
#include "coordinator/coordinator.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/summary.h"
#include "inprocess/local_node_client.h"
#include "node/dataset/dataset_bytes.h"
#include "node/pattern.h"
#include "node/storage/memory_storage.h"
#include "node/storage/storage_factory.h"
#include "tests/testing/inprocess_run.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

Config DatagenConfig(const std::string& path, DatasetFormat format) {
  Config c;
  c.run.workload = kDatagenWorkload;
  DatasetOf(c).path = path;
  DatasetOf(c).format = format;
  DatasetOf(c).samples = 300;
  DatasetOf(c).sample_bytes = 20000;
  DatasetOf(c).sample_spread = 6000;
  DatasetOf(c).shard_bytes = 256 * 1024;
  DatasetOf(c).write_threads = 3;
  c.io.block_size = 64 * 1024;  // shards take several blocks
  return c;
}

std::string Read(const std::shared_ptr<MemoryStore>& memory,
                 const std::string& uri) {
  StorageSet set(memory);
  auto loc = set.Open(uri);
  EXPECT_TRUE(loc.ok()) << loc.status();
  auto data = loc->storage->ReadSmall(loc->path);
  EXPECT_TRUE(data.ok()) << uri << ": " << data.status();
  return data.ok() ? *data : std::string();
}

// Every shard of the dataset at `root` is exactly what its layout says.
void ExpectShards(const std::shared_ptr<MemoryStore>& memory,
                  const std::string& root, const DatasetSpec& spec) {
  ShardTable table = BuildShardTable(spec);
  for (uint64_t k = 0; k < table.shards(); ++k) {
    std::string got = Read(memory, root + "/" + ShardName(k));
    ShardImage img(spec, table.first_sample[k], table.first_sample[k + 1]);
    ASSERT_EQ(got.size(), img.size()) << k;
    EXPECT_EQ(
        img.FirstMismatch(0, reinterpret_cast<const unsigned char*>(got.data()),
                          got.size()),
        got.size())
        << "shard " << k;
  }
}

TEST(Datagen, TwoNodesOnSharedStorageWriteEveryShardOnceAndTheManifestLast) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatagenConfig("mem://bucket/ds", DatasetFormat::kTar);
  InProcessRun h(memory, c, 2);
  ASSERT_TRUE(h.Run().ok()) << h.result.errors.size();
  const DatasetSpec spec = DatasetSpecOf(c);
  const DatasetTotals totals = ComputeTotals(spec);
  ASSERT_NE(DatasetResultOf(h.result), nullptr);
  const DatasetResult& d = *DatasetResultOf(h.result);
  EXPECT_FALSE(d.reused);
  EXPECT_EQ(d.written_objects, totals.objects);
  EXPECT_EQ(d.written_bytes, totals.bytes);
  EXPECT_EQ(d.written_samples, spec.samples);
  EXPECT_GT(d.samples_per_second, 0);
  ASSERT_EQ(h.result.rounds.size(), 1u);
  const RoundResult& r = h.result.rounds[0];
  EXPECT_EQ(r.workload, kDatagenWorkload);
  EXPECT_EQ(r.bytes, totals.bytes);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_GT(r.nodes[0].bytes, 0u);  // both took a share
  EXPECT_GT(r.nodes[1].bytes, 0u);
  EXPECT_EQ(r.nodes[0].bytes + r.nodes[1].bytes, totals.bytes);
  EXPECT_GT(r.ops.at("write").count(), 0u);
  ExpectShards(memory, "mem://bucket/ds", spec);
  auto m = DatasetManifestFromJson(
      Read(memory, "mem://bucket/ds/ckptbench-dataset.json"), "manifest");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->spec, spec);
  EXPECT_EQ(m->totals.objects, totals.objects);
  EXPECT_EQ(m->run_id, h.result.run_id);
  const std::string table = SummaryTable(h.result);
  EXPECT_TRUE(absl::StrContains(table, "datagen 1")) << table;
  EXPECT_TRUE(absl::StrContains(table, "300 samples")) << table;
}

TEST(Datagen, AMatchingDatasetIsReusedAndADifferentOneRefused) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatagenConfig("mem://bucket/ds", DatasetFormat::kTar);
  {
    InProcessRun h(memory, c);
    ASSERT_TRUE(h.Run().ok());
  }
  const size_t files = memory->AllPaths().size();
  memory->FlipByte("mem://bucket/ds/" + ShardName(0), 5000);  // a marker
  {
    InProcessRun h(memory, c);
    ASSERT_TRUE(h.Run().ok());
    ASSERT_NE(DatasetResultOf(h.result), nullptr);
    EXPECT_TRUE(DatasetResultOf(h.result)->reused);
    EXPECT_EQ(DatasetResultOf(h.result)->written_objects, 0u);
    EXPECT_EQ(h.result.rounds[0].bytes, 0u);
    // Not rewritten: the flipped byte is still flipped.
    memory->FlipByte("mem://bucket/ds/" + ShardName(0), 5000);
    ExpectShards(memory, "mem://bucket/ds", DatasetSpecOf(c));
  }
  Config other = c;
  DatasetOf(other).samples = 301;
  DatasetOf(other).seed = 5;
  InProcessRun h(memory, other);
  absl::Status s = h.Run();
  EXPECT_FALSE(s.ok());
  // Refused before any round: the preflight's look at the dataset found
  // node 0's manifest (input to fix: exit 2).
  EXPECT_TRUE(h.result.rounds.empty());
  EXPECT_EQ(ErrorKindOf(s), ErrorKind::kBadInput) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "samples 300 (asked: 301)")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "seed 1 (asked: 5)")) << s;
  EXPECT_EQ(memory->AllPaths().size(), files);  // nothing written
}

TEST(Datagen, FilesOnLocalDiskWithPrefixesAreTheSamplesBytes) {
  TempDir dir;
  Config c = DatagenConfig(dir.Sub("ds"), DatasetFormat::kFiles);
  DatasetOf(c).spread_prefixes = 4;
  InProcessRun h(std::make_shared<MemoryStore>(), c);
  ASSERT_TRUE(h.Run().ok());
  const DatasetSpec spec = DatasetSpecOf(c);
  EXPECT_EQ(DatasetResultOf(h.result)->written_objects, spec.samples);
  size_t found = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(dir.Sub("ds/samples"))) {
    if (e.is_regular_file()) ++found;
  }
  EXPECT_EQ(found, spec.samples);
  for (uint64_t i : {uint64_t{0}, uint64_t{17}, spec.samples - 1}) {
    std::ifstream f(dir.Sub("ds/" + SampleObjectName(spec, i)),
                    std::ios::binary);
    std::string got((std::istreambuf_iterator<char>(f)), {});
    ASSERT_EQ(got.size(), SampleSize(spec, i)) << i;
    EXPECT_EQ(FirstPatternMismatch(SampleStreamKey(spec.seed, i), 0, got.data(),
                                   got.size()),
              got.size());
  }
  // The directories' entries were made durable, and the round says where.
  EXPECT_EQ(h.result.rounds[0].nodes[0].storage_kind, "posix");
}

TEST(Datagen, RemoveTakesTheManifestAndItsObjectsAndNothingElse) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatagenConfig("mem://bucket/ds", DatasetFormat::kFiles);
  DatasetOf(c).spread_prefixes = 3;
  {
    InProcessRun h(memory, c, 2);
    ASSERT_TRUE(h.Run().ok());
  }
  memory->Put("mem://bucket/ds/samples/00/mine.txt", "a user's file");
  memory->Put("mem://bucket/ds/notes.txt", "another");
  Config rm = c;
  DatasetOf(rm).remove = true;
  DatasetOf(rm).samples = 1;  // ignored: the manifest says what to remove
  InProcessRun h(memory, rm, 2);
  ASSERT_TRUE(h.Run().ok());
  EXPECT_TRUE(DatasetResultOf(h.result)->removed);
  EXPECT_EQ(DatasetResultOf(h.result)->removed_objects, 300u);
  std::vector<std::string> left;
  for (const auto& p : memory->AllPaths()) {
    if (absl::StartsWith(p, "mem://bucket/ds/")) left.push_back(p);
  }
  EXPECT_EQ(left,
            (std::vector<std::string>{"mem://bucket/ds/notes.txt",
                                      "mem://bucket/ds/samples/00/mine.txt"}));
  // Again: there is nothing ckptbench made there now.
  InProcessRun again(memory, rm);
  absl::Status s = again.Run();
  EXPECT_TRUE(absl::StrContains(s.message(), "holds no ckptbench-dataset.json"))
      << s;
}

TEST(Datagen, NodeLocalDisksEachHoldAWholeReplica) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatagenConfig("mem://bucket/node{node}/ds", DatasetFormat::kTar);
  c.storage.node_local = true;
  InProcessRun h(memory, c, 2);
  ASSERT_TRUE(h.Run().ok());
  const DatasetSpec spec = DatasetSpecOf(c);
  EXPECT_EQ(DatasetResultOf(h.result)->written_samples, 2 * spec.samples);
  for (const char* root : {"mem://bucket/node0/ds", "mem://bucket/node1/ds"}) {
    ExpectShards(memory, root, spec);
    EXPECT_FALSE(
        Read(memory, std::string(root) + "/ckptbench-dataset.json").empty());
  }
}

}  // namespace
}  // namespace ckpt
