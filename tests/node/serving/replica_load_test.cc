// A generated model written, found, planned and read back by a replica's
// ranks, every byte verified: the serving pieces end to end on one node
// (node/serving/, common/serving/), before their workload.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "common/model_presets.h"
#include "common/serving/model_files.h"
#include "common/serving/replica_plan.h"
#include "common/step_layout.h"
#include "node/serving/model_bytes.h"
#include "node/serving/model_headers.h"
#include "node/serving/range_stream.h"
#include "node/storage/memory_storage.h"
#include "node/storage/posix_storage.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kSeed = 77;

std::vector<ModelFile> TinyLlamaFiles() {
  std::vector<StTensor> ts = ModelTensors(
      LlamaTensors({64, 160, 2, 4, 2, 384}, kBf16), StDtype::kBf16);
  return ShardModel(ts, 64 << 10);
}

// Every rank of a replica of `ranks` reads its share of the model under
// `dir`, checking each chunk; the bytes read.
absl::StatusOr<uint64_t> LoadReplica(Storage& storage, const std::string& dir,
                                     const std::vector<ModelFile>& model,
                                     ReplicaSplit split, int ranks) {
  auto headers = ReadModelHeaders(storage, dir, AtMost(1000));
  if (!headers.ok()) return headers.status();
  std::vector<PlannedFile> planned;
  for (const ModelFileHeader& f : headers->files) {
    planned.push_back({f.name, f.size, f.header});
  }
  auto plan = PlanReplica(planned, split, ranks);
  if (!plan.ok()) return plan.status();
  uint64_t read = 0;
  for (const RankReads& rank : plan->ranks) {
    std::vector<StreamedFile> files;
    std::vector<size_t> index;
    for (const FileReads& f : rank.files) {
      files.push_back({JoinPath(dir, planned[f.file].name),
                       planned[f.file].size, f.ranges});
      index.push_back(f.file);
    }
    StreamOptions options;
    options.concurrency = 3;
    options.chunk_bytes = 4096;
    auto tally = StreamRanges(
        storage, files, options,
        [&](size_t f, uint64_t off, const unsigned char* data, size_t len) {
          return CheckModelChunk(model[index[f]],
                                 static_cast<uint32_t>(index[f]), kSeed,
                                 files[f].path, off, data, len);
        },
        nullptr);
    if (!tally.ok()) return tally.status();
    read += tally->bytes;
  }
  EXPECT_EQ(read, plan->read_bytes);
  return read;
}

TEST(ReplicaLoad, AGeneratedModelIsReadBackVerifiedWholeAndSliced) {
  const std::vector<ModelFile> model = TinyLlamaFiles();
  ASSERT_GE(model.size(), 4u);
  uint64_t size = 0, headers = 0;
  for (const ModelFile& f : model) {
    size += f.Size();
    headers += f.header.size();
  }
  TempDir d;
  auto posix = PosixStorage::Make().value();
  auto memory = MemoryStorage::Make(std::make_shared<MemoryStore>());
  struct Target {
    Storage* storage;
    std::string dir;
  } targets[] = {{posix.get(), d.Sub("m")}, {memory.get(), "b/m"}};
  for (const Target& t : targets) {
    SCOPED_TRACE(t.dir);
    ASSERT_TRUE(
        WriteGeneratedModel(*t.storage, t.dir, model, kSeed, 10000).ok());
    auto whole =
        LoadReplica(*t.storage, t.dir, model, ReplicaSplit::kWholeFiles, 2);
    ASSERT_TRUE(whole.ok()) << whole.status();
    EXPECT_EQ(*whole, size);
    for (int tp : {2, 4}) {
      auto sliced = LoadReplica(*t.storage, t.dir, model,
                                ReplicaSplit::kTensorParallel, tp);
      ASSERT_TRUE(sliced.ok()) << sliced.status();
      // Every tensor byte, the norms once per rank, no header byte.
      EXPECT_GT(*sliced, size - headers);
      EXPECT_LT(*sliced, size - headers + 4096);
    }
  }
}

TEST(ReplicaLoad, AByteThatDiffersFailsTheLoadNamingFileAndByte) {
  const std::vector<ModelFile> model = TinyLlamaFiles();
  auto store = std::make_shared<MemoryStore>();
  auto storage = MemoryStorage::Make(store);
  ASSERT_TRUE(WriteGeneratedModel(*storage, "b/m", model, kSeed, 4096).ok());
  const std::string path = "b/m/" + model[1].name;
  auto f = storage->OpenRead(path, ReadOptions{});
  ASSERT_TRUE(f.ok());
  std::string bytes((*f)->Size(), '\0');
  ASSERT_TRUE((*f)->Read(0, bytes.data(), bytes.size()).ok());
  const uint64_t at = model[1].header.size() + 1000;
  bytes[at] = static_cast<char>(bytes[at] ^ 1);
  store->Put(path, bytes);
  auto load = LoadReplica(*storage, "b/m", model, ReplicaSplit::kWholeFiles, 1);
  ASSERT_FALSE(load.ok());
  EXPECT_TRUE(absl::IsDataLoss(load.status()));
  EXPECT_THAT(load.status().message(),
              HasSubstr(path + ": byte " + std::to_string(at) +
                        " differs from the tensor data"));
  // A model generated with another seed is not this one.
  ASSERT_TRUE(
      WriteGeneratedModel(*storage, "b/m2", model, kSeed + 1, 4096).ok());
  EXPECT_FALSE(
      LoadReplica(*storage, "b/m2", model, ReplicaSplit::kWholeFiles, 1).ok());
}

}  // namespace
}  // namespace ckpt
