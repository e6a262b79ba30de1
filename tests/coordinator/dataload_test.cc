// Dataload epochs through the coordinator and in-process nodes on memory
// storage: each sample read exactly once per epoch across all ranks and
// in another order the next, a corrupted sample named, and the emulated
// accelerators' utilization on storage paced to a known rate, worked out
// by hand.
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "coordinator/checkpoint/planner.h"
#include "coordinator/coordinator.h"
#include "coordinator/summary.h"
#include "inprocess/local_node_client.h"
#include "node/dataset/dataset_bytes.h"
#include "node/dataset/sample_index.h"
#include "node/storage/memory_storage.h"
#include "tests/testing/inprocess_run.h"

namespace ckpt {
namespace {

Config DatasetConfig(DatasetFormat format, uint64_t samples) {
  Config c;
  c.dataset.path = "mem://bucket/ds";
  c.dataset.format = format;
  c.dataset.samples = samples;
  c.dataset.sample_bytes = 12000;
  c.dataset.sample_spread = 3000;
  c.dataset.shard_bytes = 128 * 1024;
  c.dataset.write_threads = 2;
  c.cluster.num_devices = "2";
  c.io.block_size = 64 * 1024;
  c.dataload.batch_size = 8;
  c.dataload.num_workers = 2;
  c.dataload.epochs = 2;
  return c;
}

using Harness = InProcessRun;

void MakeDataset(const std::shared_ptr<MemoryStore>& memory, Config c) {
  c.run.workload = Workload::kDatagen;
  Harness h(memory, c, 1);
  ASSERT_TRUE(h.Run().ok());
}

class DataloadMatrix : public ::testing::TestWithParam<DatasetFormat> {};

TEST_P(DataloadMatrix, EverySampleOncePerEpochInANewOrderEachEpoch) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatasetConfig(GetParam(), 240);  // 4 ranks x 60
  MakeDataset(memory, c);
  c.run.workload = Workload::kDataload;
  Harness h(memory, c, 2);
  absl::Status s = h.Run();
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(h.result.rounds.size(), 2u);
  std::vector<uint64_t> order0;
  for (size_t e = 0; e < 2; ++e) {
    const RoundResult& r = h.result.rounds[e];
    EXPECT_EQ(r.workload, Workload::kDataload);
    ASSERT_TRUE(r.epoch.has_value());
    const EpochResult& ep = *r.epoch;
    EXPECT_TRUE(ep.each_sample_once) << "epoch " << e;
    EXPECT_EQ(ep.samples, 240u);
    EXPECT_EQ(ep.dropped + ep.padded, 0u);
    ASSERT_EQ(ep.ranks.size(), 4u);
    uint64_t worker_samples = 0;
    for (const auto& w : ep.workers) worker_samples += w.samples;
    EXPECT_EQ(worker_samples, 240u);
    EXPECT_EQ(ep.workers.size(), 8u);  // 4 ranks x 2 workers
    for (size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(ep.ranks[k].samples, 60u);
      EXPECT_EQ(ep.ranks[k].batches, 8u);  // 7 of 8, one of 4
      if (e == 0) {
        order0.push_back(ep.ranks[k].order_digest);
      } else {
        EXPECT_NE(ep.ranks[k].order_digest, order0[k]) << "rank " << k;
      }
    }
    EXPECT_GT(ep.samples_per_second, 0);
    EXPECT_EQ(ep.sample_last_byte.count(), 240u);
    EXPECT_EQ(ep.wait.count(), 32u);
    EXPECT_GT(r.bytes, 240u * 1000);
    EXPECT_EQ(r.cache.method, "none");  // mem:// keeps no cache
  }
  const std::string table = SummaryTable(h.result);
  EXPECT_TRUE(absl::StrContains(table, "each once")) << table;
}

INSTANTIATE_TEST_SUITE_P(Formats, DataloadMatrix,
                         ::testing::Values(DatasetFormat::kFiles,
                                           DatasetFormat::kTar),
                         [](const auto& info) {
                           return std::string(Name(info.param));
                         });

TEST(Dataload, SamplesThatDoNotDivideAreDroppedAndCounted) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatasetConfig(DatasetFormat::kFiles, 103);
  MakeDataset(memory, c);
  c.run.workload = Workload::kDataload;
  c.dataload.epochs = 1;
  Harness h(memory, c, 1);  // 2 ranks
  ASSERT_TRUE(h.Run().ok());
  const EpochResult& ep = *h.result.rounds[0].epoch;
  EXPECT_EQ(ep.samples, 102u);
  EXPECT_EQ(ep.dropped, 1u);
  EXPECT_FALSE(ep.each_sample_once);
}

TEST(Dataload, ACorruptedSampleFailsTheEpochNamingItsShardAndKey) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatasetConfig(DatasetFormat::kTar, 64);
  MakeDataset(memory, c);
  const SampleIndex index(DatasetSpecOf(c));
  const SampleLocation loc = index.Locate(37);
  memory->FlipByte("mem://bucket/ds/" + loc.object, loc.offset + 100);
  c.run.workload = Workload::kDataload;
  c.dataload.shuffle = false;
  Harness h(memory, c, 1);
  absl::Status s = h.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(
      s.message(),
      "sample s0000000037 in " + loc.object + ": byte 100 of its data"))
      << s;
  ASSERT_EQ(h.result.rounds.size(), 1u);
  EXPECT_EQ(h.result.rounds[0].status, RunStatus::kFailed);
  EXPECT_EQ(h.result.rounds[0].error_kind, "data_loss");
  EXPECT_TRUE(h.result.rounds[0].epoch.has_value());  // what was measured
}

// Rank 1's first sample is corrupted and storage is slow (one sample in
// about 12 ms): rank 1 fails at once while rank 0's accelerator is still
// waiting for its first batch. Rank 0 stops on the shared abort flag (it
// used to wait forever for a batch its workers had given up) and the
// epoch fails naming the sample.
TEST(Dataload, ARanksFailureStopsTheRanksStillWaiting) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatasetConfig(DatasetFormat::kFiles, 64);
  MakeDataset(memory, c);
  const SampleIndex index(DatasetSpecOf(c));
  const SampleLocation loc = index.Locate(1);
  memory->FlipByte("mem://bucket/ds/" + loc.object, loc.offset + 100);
  memory->SetRate(1024.0 * 1024);
  c.run.workload = Workload::kDataload;
  c.dataload.shuffle = false;
  c.dataload.epochs = 1;
  Harness h(memory, c, 1);  // 2 ranks: samples 0, 2, ... and 1, 3, ...
  absl::Status s = h.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "sample s0000000001")) << s;
  ASSERT_EQ(h.result.rounds.size(), 1u);
  EXPECT_EQ(h.result.rounds[0].error_kind, "data_loss");
}

// Storage at R = 8 MiB/s for all readers; samples of S = 64 KiB, batches of
// B = 4: one batch's bytes take B x S / R = 31.25 ms to arrive, however
// many workers ask at once. An accelerator computing c per batch is busy
// c / max(c, 31.25 ms) of the time in steady state: 0.5 at c = 15.625 ms
// (storage-bound), 1 at c = 48 ms (compute-bound), less the first batch's
// wait and the last compute's tail.
TEST(Dataload, UtilizationOnPacedStorageIsWhatTheRatesSay) {
  struct Case {
    double compute;
    uint64_t samples;
    double low, high;
  };
  for (const Case& k :
       {Case{0.015625, 256, 0.42, 0.58}, Case{0.048, 128, 0.90, 1.0}}) {
    auto memory = std::make_shared<MemoryStore>();
    Config c = DatasetConfig(DatasetFormat::kFiles, k.samples);
    c.dataset.sample_bytes = 64 * 1024;
    c.dataset.sample_spread = 0;
    MakeDataset(memory, c);
    memory->SetRate(8.0 * 1024 * 1024);
    c.run.workload = Workload::kDataload;
    c.cluster.num_devices = "1";
    c.dataload.epochs = 1;
    c.dataload.batch_size = 4;
    c.dataload.num_workers = 4;
    c.dataload.compute_time = k.compute;
    Harness h(memory, c, 1);
    ASSERT_TRUE(h.Run().ok());
    const EpochResult& ep = *h.result.rounds[0].epoch;
    EXPECT_GE(ep.utilization, k.low) << "compute " << k.compute;
    EXPECT_LE(ep.utilization, k.high) << "compute " << k.compute;
    const double seconds = h.result.rounds[0].seconds;
    const double bytes_time = k.samples * 64.0 * 1024 / (8.0 * 1024 * 1024);
    const double compute_time = k.samples / 4 * k.compute;
    EXPECT_GE(seconds, std::max(bytes_time, compute_time));
    EXPECT_LE(seconds, std::max(bytes_time, compute_time) * 1.5 + 0.2);
  }
}

}  // namespace
}  // namespace ckpt
