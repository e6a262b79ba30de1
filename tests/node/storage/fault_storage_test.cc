// The tests' fault-injecting storage (tests/testing/fault_storage.h) does
// what its rules say and nothing else: a rule skips its first matching
// calls, acts on the next `times`, matches by operation and path, and
// calls it does not fail reach the storage underneath.
#include "tests/testing/fault_storage.h"

#include <gtest/gtest.h>

#include <string>

#include "node/storage/memory_storage.h"

namespace ckpt {
namespace {

TEST(FaultStorage, ARuleActsOnItsCallsOnly) {
  std::shared_ptr<Storage> memory =
      MemoryStorage::Make(std::make_shared<MemoryStore>());
  FaultStorage faults(memory);
  faults.Add({StorageOp::kWriteAtomic, "/step-2/", 1, 2,
              absl::DataLossError("planted")});
  std::vector<bool> ok;
  for (int i = 0; i < 5; ++i) {
    ok.push_back(
        faults.WriteAtomic("mem://b/step-2/m" + std::to_string(i), "x").ok());
  }
  EXPECT_EQ(ok, (std::vector<bool>{true, false, false, true, true}));
  EXPECT_TRUE(faults.WriteAtomic("mem://b/step-3/m", "x").ok())
      << "another path";
  EXPECT_EQ(faults.injected(), 2);
  EXPECT_EQ(faults.calls(StorageOp::kWriteAtomic), 6);
  // Only the calls let through reached the memory store.
  auto names = memory->ListDir("mem://b/step-2");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->size(), 3u);
}

TEST(FaultStorage, EveryCallAfterTheSkipWhenTimesIsNegative) {
  std::shared_ptr<Storage> memory =
      MemoryStorage::Make(std::make_shared<MemoryStore>());
  FaultStorage faults(memory);
  faults.Add({StorageOp::kAppend, "", 2, -1, absl::UnavailableError("down")});
  auto w = faults.OpenWrite("mem://b/f", {});
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE((*w)->Append("a", 1).ok());
  EXPECT_TRUE((*w)->Append("b", 1).ok());
  for (int i = 0; i < 3; ++i) EXPECT_FALSE((*w)->Append("c", 1).ok());
  EXPECT_TRUE((*w)->Close().ok());
  auto text = memory->ReadSmall("mem://b/f");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "ab");
}

}  // namespace
}  // namespace ckpt
