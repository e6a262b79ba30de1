// Hostile datasets through the coordinator and in-process nodes on memory
// storage (issue: hostile datasets): a datagen claims its path, so a
// concurrent one is refused; a datagen or a removal that did not finish
// (a full disk, a failure mid-way) leaves what the next --remove needs to
// finish; a dataset larger than the disk's free space is refused before
// anything is written; an epoch that leaves a rank nothing, and a plan
// whose index cannot fit, are refused before the first round.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_manifest.h"
#include "common/dataset/dataset_options.h"
#include "coordinator/dataset/dataset_results.h"
#include "node/storage/memory_storage.h"
#include "tests/testing/fault_storage.h"
#include "tests/testing/inprocess_run.h"

namespace ckpt {
namespace {

Config DatagenConfig(const std::string& path) {
  Config c;
  c.run.workload = kDatagenWorkload;
  DatasetOf(c).path = path;
  DatasetOf(c).format = DatasetFormat::kFiles;
  DatasetOf(c).spread_prefixes = 4;
  DatasetOf(c).samples = 200;
  DatasetOf(c).sample_bytes = 4096;
  DatasetOf(c).sample_spread = 0;
  DatasetOf(c).write_threads = 2;
  return c;
}

std::vector<std::string> Under(const std::shared_ptr<MemoryStore>& memory,
                               const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& p : memory->AllPaths()) {
    if (absl::StartsWith(p, prefix)) out.push_back(p);
  }
  return out;
}

// Every backend over `memory` gets `fault`, and answers `free` (when set)
// for the free space.
void Inject(const std::shared_ptr<MemoryStore>& memory,
            std::vector<StorageFault> faults,
            std::optional<uint64_t> free = std::nullopt) {
  memory->SetWrapper([faults, free](std::shared_ptr<Storage> inner) {
    auto f = std::make_shared<FaultStorage>(std::move(inner));
    for (const StorageFault& fault : faults) f->Add(fault);
    f->SetFreeBytes(free);
    return std::shared_ptr<Storage>(f);
  });
}

// A datagen claims the path as a save claims its step: a second one (here
// another spec, as two people's runs would) while the first has not
// written its manifest is refused at prepare, naming the first, and
// writes nothing.
TEST(HostileDatasetRun, ASecondDatagenOnAClaimedPathIsRefusedNamingTheFirst) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatagenConfig("mem://b/ds");
  // The first run fails on its 50th object: it claimed the path, wrote
  // part of the dataset, and no manifest.
  Inject(memory, {{StorageOp::kCloseWrite, "samples/", 50, 1,
                   absl::ResourceExhaustedError(
                       "write: No space left on device (ENOSPC)")}});
  InProcessRun first(memory, c);
  absl::Status s = first.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "No space left")) << s;
  memory->SetWrapper(nullptr);
  const size_t left = Under(memory, "mem://b/ds/samples/").size();
  EXPECT_GE(left, 50u);
  EXPECT_EQ(
      Under(memory, "mem://b/ds/" + std::string(kDatasetManifestName)).size(),
      0u);

  Config other = c;
  DatasetOf(other).samples = 300;
  InProcessRun second(memory, other);
  s = second.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(),
                                "is claimed by run " + first.result.run_id))
      << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "--remove")) << s;
  EXPECT_EQ(Under(memory, "mem://b/ds/samples/").size(), left);

  // A removal finishes what the failed datagen left: every object it
  // wrote, its claim and pending manifest; nothing is left of it.
  Config rm = c;
  DatasetOf(rm).remove = true;
  InProcessRun removal(memory, rm);
  s = removal.Run();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(DatasetResultOf(removal.result)->unfinished);
  EXPECT_EQ(DatasetResultOf(removal.result)->removed_objects, 200u);
  EXPECT_EQ(Under(memory, "mem://b/ds/"), std::vector<std::string>{});
  // And the path is free: a datagen now makes the dataset whole.
  InProcessRun again(memory, other);
  ASSERT_TRUE(again.Run().ok());
  EXPECT_EQ(Under(memory, "mem://b/ds/samples/").size(), 300u);
}

// A removal that fails mid-way (here, the 3rd batch of names) leaves the
// pending manifest: the next --remove finishes it, though the manifest is
// gone.
TEST(HostileDatasetRun, ARemovalThatDidNotFinishIsFinishedByTheNext) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatagenConfig("mem://b/ds");
  ASSERT_TRUE(InProcessRun(memory, c).Run().ok());
  memory->Put("mem://b/ds/notes.txt", "not ckptbench's");
  Config rm = c;
  DatasetOf(rm).remove = true;
  Inject(memory, {{StorageOp::kRemoveFiles, "samples/02", 0, 1,
                   absl::UnavailableError("injected: the store went away")}});
  InProcessRun killed(memory, rm);
  ASSERT_FALSE(killed.Run().ok());
  memory->SetWrapper(nullptr);
  EXPECT_EQ(
      Under(memory, "mem://b/ds/" + std::string(kDatasetManifestName)).size(),
      0u);
  EXPECT_FALSE(Under(memory, "mem://b/ds/samples/").empty());

  InProcessRun finish(memory, rm);
  absl::Status s = finish.Run();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(DatasetResultOf(finish.result)->unfinished);
  EXPECT_EQ(Under(memory, "mem://b/ds/"),
            std::vector<std::string>{"mem://b/ds/notes.txt"});
}

// A claim with no pending manifest (a datagen killed between the two, or
// whose pending write failed) is no dead end: --remove clears it, and the
// path is free again.
TEST(HostileDatasetRun, AClaimWithoutAPendingManifestIsClearedByRemove) {
  auto memory = std::make_shared<MemoryStore>();
  memory->Put("mem://b/ds/.ckptbench-datagen/.ckptbench-claim", "run-x");
  Config c = DatagenConfig("mem://b/ds");
  InProcessRun blocked(memory, c);
  ASSERT_FALSE(blocked.Run().ok());
  Config rm = c;
  DatasetOf(rm).remove = true;
  InProcessRun removal(memory, rm);
  absl::Status s = removal.Run();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(DatasetResultOf(removal.result)->removed_objects, 0u);
  EXPECT_EQ(Under(memory, "mem://b/ds/"), std::vector<std::string>{});
  ASSERT_TRUE(InProcessRun(memory, c).Run().ok());
}

// A dataset larger than the file system's free space is refused before
// anything is written (preflight: input to fix), with both figures.
TEST(HostileDatasetRun, ADatasetLargerThanTheFreeSpaceIsRefusedFirst) {
  auto memory = std::make_shared<MemoryStore>();
  Inject(memory, {}, uint64_t{100 * 1024});
  InProcessRun run(memory, DatagenConfig("mem://b/ds"));
  absl::Status s = run.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "800.00 KiB")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "100.00 KiB free")) << s;
  EXPECT_TRUE(run.result.rounds.empty());
  EXPECT_EQ(Under(memory, "mem://b/"), std::vector<std::string>{});
}

// An epoch that leaves a rank no sample is refused before the first
// round: 1 sample over 4 ranks (it read 0 samples and said "ok").
TEST(HostileDatasetRun, AnEpochThatLeavesARankNothingIsRefusedFirst) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = DatagenConfig("mem://b/ds");
  DatasetOf(c).samples = 1;
  ASSERT_TRUE(InProcessRun(memory, c).Run().ok());
  Config load = c;
  load.run.workload = kDataloadWorkload;
  load.cluster.num_devices = "4";
  InProcessRun run(memory, load);
  absl::Status s = run.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "1 sample(s) for 4 ranks")) << s;
  EXPECT_TRUE(run.result.rounds.empty());
  DataloadOf(load).access = DataAccess::kIterable;
  InProcessRun iterable(memory, load);
  s = iterable.Run();
  EXPECT_TRUE(absl::StrContains(s.message(), "3 rank(s) would read nothing"))
      << s;
}

}  // namespace
}  // namespace ckpt
