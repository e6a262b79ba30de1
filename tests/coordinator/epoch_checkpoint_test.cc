// Checkpoints during a dataload epoch (dataload.checkpoint_every) through
// the coordinator and in-process nodes: the dataset on memory storage, the
// checkpoints on storage paced on purpose (null://mibps-N), so the dip in
// samples/s while a save runs is what the rates say; and a checkpoint
// taken during an epoch restored by a later load-only run.
#include <gtest/gtest.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_options.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/summary.h"
#include "tests/testing/inprocess_run.h"
#include "tests/testing/timing.h"

namespace ckpt {
namespace {

// 1,536 samples of 4 KiB over 2 ranks in batches of 4: 192 batches a
// rank, an accelerator step of 8 ms, so the loader (memory, 2 workers a
// rank) is never the limit: 2 x 4 / 8 ms = 1,000 samples/s. A checkpoint
// after every 60 batches (480 ms of training): 3 saves of the
// NUM_LAYERS=1 model without optimizer state (53.5 MiB), the last 12
// batches before the epoch's end.
Config EpochConfig() {
  Config c;
  DatasetOf(c).path = "mem://bucket/ds";
  DatasetOf(c).format = DatasetFormat::kFiles;
  DatasetOf(c).samples = 1536;
  DatasetOf(c).sample_bytes = 4096;
  DatasetOf(c).sample_spread = 0;
  DatasetOf(c).write_threads = 2;
  c.cluster.num_devices = "2";
  c.model.num_layers = 1;
  c.model.optimizer = Optimizer::kNone;
  c.io.block_size = 1 << 20;
  DataloadOf(c).batch_size = 4;
  DataloadOf(c).num_workers = 2;
  DataloadOf(c).epochs = 1;
  DataloadOf(c).compute_time = 0.008;
  DataloadOf(c).checkpoint_every = 60;
  c.run.progress_interval = 10;
  return c;
}

const RoundResult& Epoch(const RunResult& r) {
  return *std::find_if(
      r.rounds.begin(), r.rounds.end(),
      [](const RoundResult& x) { return EpochOf(x) != nullptr; });
}

std::vector<const RoundResult*> Saves(const RunResult& r) {
  std::vector<const RoundResult*> out;
  for (const auto& x : r.rounds) {
    if (x.workload == kCheckpointWorkload && x.phase == Phase::kSave) {
      out.push_back(&x);
    }
  }
  return out;
}

// At 512 MiB/s a save of B bytes takes B / 512 MiB/s (0.1 s): a sync
// save holds every rank for all of it, from the moment both are at the
// batch, so its window consumes nothing: the dip is the whole rate.
TEST(EpochCheckpoint, ASyncSaveHoldsEveryRankForItsWholeWindow) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = EpochConfig();
  MakeDataset(memory, c);
  c.run.workload = kDataloadWorkload;
  c.storage.path = "null://mibps-512";
  InProcessRun h(memory, c, 1);
  absl::Status s = h.Run();
  ASSERT_TRUE(s.ok()) << s;
  const EpochResult& ep = *EpochOf(Epoch(h.result));
  EXPECT_TRUE(ep.each_sample_once);
  const auto saves = Saves(h.result);
  ASSERT_EQ(saves.size(), 3u);
  ASSERT_EQ(ep.saves.size(), 3u);
  const double bytes = static_cast<double>(h.plan.total_bytes);
  const double paced = bytes / (512.0 * 1024 * 1024);
  if (kRatesHold) {
    EXPECT_NEAR(ep.rest_samples_per_second, 1000, 250);
  }
  for (size_t k = 0; k < 3; ++k) {
    const EpochResult::Save& w = ep.saves[k];
    const RoundResult& r = *saves[k];
    EXPECT_EQ(r.status, RunStatus::kOk) << r.error;
    EXPECT_EQ(w.index, r.index);
    EXPECT_EQ(w.step, r.step);
    EXPECT_EQ(w.batch, 60u * (k + 1));
    EXPECT_EQ(r.bytes, h.plan.total_bytes);
    EXPECT_GE(w.window_seconds, paced) << k;
    EXPECT_GE(w.blocked_seconds, paced) << k;
    EXPECT_EQ(w.window_samples, 0u) << k;  // every rank held
    EXPECT_EQ(w.window_samples_per_second, 0) << k;
    EXPECT_FALSE(r.staging.async);
  }
  // The epoch's time: the batches' compute and the three saves.
  EXPECT_GE(Epoch(h.result).seconds, 192 * 0.008 + 3 * paced);
  const std::string table = SummaryTable(h.result);
  EXPECT_TRUE(absl::StrContains(table, "epoch 1 checkpoints")) << table;
  EXPECT_TRUE(absl::StrContains(table, "save 3")) << table;
}

// An async save holds the ranks only while it stages (a copy in memory)
// and persists beside the epoch, at 128 MiB/s (0.42 s, less than the 0.48
// s of training to the next save): in its window the ranks consume at the
// rest's rate for all but the time they were held.
TEST(EpochCheckpoint, AnAsyncSaveHoldsTheRanksOnlyWhileItStages) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = EpochConfig();
  MakeDataset(memory, c);
  c.run.workload = kDataloadWorkload;
  c.storage.path = "null://mibps-128";
  CheckpointOf(c).async = true;
  InProcessRun h(memory, c, 1);
  absl::Status s = h.Run();
  ASSERT_TRUE(s.ok()) << s;
  const EpochResult& ep = *EpochOf(Epoch(h.result));
  EXPECT_TRUE(ep.each_sample_once);
  const auto saves = Saves(h.result);
  ASSERT_EQ(saves.size(), 3u);
  ASSERT_EQ(ep.saves.size(), 3u);
  const double paced =
      static_cast<double>(h.plan.total_bytes) / (128.0 * 1024 * 1024);
  for (size_t k = 0; k < 3; ++k) {
    const EpochResult::Save& w = ep.saves[k];
    const RoundResult& r = *saves[k];
    EXPECT_EQ(r.status, RunStatus::kOk) << r.error;
    EXPECT_TRUE(r.staging.async);
    EXPECT_GE(w.window_seconds, paced) << k;
    // Every file is staged before any persists, and the persist (paced:
    // `paced` at least) comes after the ranks are let go, so none is held
    // by it. Not a share of the window: staging is a memory copy whose
    // time is the machine's (0.45 s once on a loaded CI, 53 MiB of fresh
    // pages), where a sync save's held time is the whole window.
    EXPECT_GE(w.window_seconds, w.blocked_seconds + 0.95 * paced)
        << k << " window " << w.window_seconds << " blocked "
        << w.blocked_seconds;
    EXPECT_LT(w.blocked_seconds, w.window_seconds) << k;
    if (k == 2) continue;  // persists after the last batch
    // What the rest's rate gives for the window's unheld part.
    const double predicted =
        ep.rest_samples_per_second * (w.window_seconds - w.blocked_seconds);
    EXPECT_GE(w.window_samples, 0.6 * predicted)
        << k << " window " << w.window_seconds << " blocked "
        << w.blocked_seconds << " start " << w.start_seconds << " rest "
        << ep.rest_samples_per_second;
    EXPECT_LE(w.window_samples, 1.3 * predicted + 8) << k;
  }
}

// Saved during an epoch on memory storage, then restored by a load-only
// run as any checkpoint is: the newest step, every byte verified.
TEST(EpochCheckpoint, ACheckpointTakenDuringAnEpochIsRestoredByALaterLoad) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = EpochConfig();
  MakeDataset(memory, c);
  c.run.workload = kDataloadWorkload;
  c.storage.path = "mem://bucket/run";
  DataloadOf(c).compute_time = 0;
  InProcessRun h(memory, c, 1);
  absl::Status s = h.Run();
  ASSERT_TRUE(s.ok()) << s;
  const auto saves = Saves(h.result);
  ASSERT_EQ(saves.size(), 3u);
  const uint64_t newest = saves.back()->step;

  Config load = EpochConfig();
  load.storage.path = "mem://bucket/run";
  DataloadOf(load).checkpoint_every = 0;
  CheckpointOf(load).mode = RunMode::kLoadOnly;
  CheckpointOf(load).num_load_calls = 1;
  InProcessRun l(memory, load, 1);
  s = l.Run();
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(l.result.rounds.size(), 1u);
  const RoundResult& r = l.result.rounds[0];
  EXPECT_EQ(r.phase, Phase::kLoad);
  EXPECT_EQ(r.step, newest);
  EXPECT_TRUE(r.verified);
}

// Iterable access gives ranks uneven batches: 7 sample files over 2 nodes'
// single ranks (one worker each, batches of 1) give rank 0 four and rank 1
// three. After batch 2 both save; at batch 4 only rank 0 is there, node 1
// says its ranks are done, and node 0 is told to skip: one save, the epoch
// whole, nothing left waiting.
TEST(EpochCheckpoint, ANodeWhoseRanksAreDoneMakesTheOthersSkipTheSave) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = EpochConfig();
  DatasetOf(c).samples = 7;
  c.cluster.num_devices = "1";
  MakeDataset(memory, c);
  c.run.workload = kDataloadWorkload;
  c.storage.path = "mem://bucket/run";
  DataloadOf(c).access = DataAccess::kIterable;
  DataloadOf(c).shuffle = false;
  DataloadOf(c).shuffle_buffer = 1;
  DataloadOf(c).batch_size = 1;
  DataloadOf(c).num_workers = 1;
  DataloadOf(c).compute_time = 0;
  DataloadOf(c).checkpoint_every = 2;
  InProcessRun h(memory, c, 2);
  absl::Status s = h.Run();
  ASSERT_TRUE(s.ok()) << s;
  const EpochResult& ep = *EpochOf(Epoch(h.result));
  EXPECT_TRUE(ep.each_sample_once);
  ASSERT_EQ(ep.saves.size(), 1u);
  EXPECT_EQ(ep.saves[0].batch, 2u);
  ASSERT_EQ(Saves(h.result).size(), 1u);
  EXPECT_EQ(Saves(h.result)[0]->status, RunStatus::kOk);
}

}  // namespace
}  // namespace ckpt
