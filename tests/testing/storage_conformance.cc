// The storage conformance cases (storage_conformance.h).
#include "tests/testing/storage_conformance.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/step_layout.h"

namespace ckpt {
namespace {

TEST_P(StorageConformance, WriteReadRoundTrip) {
  std::string dir = JoinPath(root_, "a/b");
  ASSERT_TRUE(storage_->CreateDirs(dir).ok());
  std::string path = JoinPath(dir, "f.bin");
  auto w = storage_->OpenWrite(path, {});
  ASSERT_TRUE(w.ok()) << w.status();
  std::string data(100000, 'x');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i);
  ASSERT_TRUE((*w)->Append(data.data(), 60000).ok());
  ASSERT_TRUE((*w)->Append(data.data() + 60000, 40000).ok());
  ASSERT_TRUE((*w)->Sync().ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto r = storage_->OpenRead(path, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)->Size(), data.size());
  std::string back(data.size(), '\0');
  auto n = (*r)->Read(0, back.data(), back.size());
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, data.size());
  EXPECT_EQ(back, data);
  auto tail = (*r)->Read(99990, back.data(), 100);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(*tail, 10u);
  EXPECT_EQ(*(*r)->Read(data.size(), back.data(), 10), 0u);
}

TEST_P(StorageConformance, ListExistsRemove) {
  ASSERT_TRUE(storage_->CreateDirs(JoinPath(root_, "step-1")).ok());
  ASSERT_TRUE(
      storage_->WriteAtomic(JoinPath(root_, "step-1/.metadata"), "{}").ok());
  ASSERT_TRUE(storage_->CreateDirs(JoinPath(root_, "step-2")).ok());
  auto names = storage_->ListDir(root_);
  ASSERT_TRUE(names.ok()) << names.status();
  std::sort(names->begin(), names->end());
  if (GetParam().object_store) {
    // No empty directories on an object store: a prefix exists while
    // something is stored under it.
    EXPECT_EQ(*names, (std::vector<std::string>{"step-1"}));
  } else {
    EXPECT_EQ(*names, (std::vector<std::string>{"step-1", "step-2"}));
  }
  EXPECT_TRUE(*storage_->Exists(JoinPath(root_, "step-1/.metadata")));
  EXPECT_FALSE(*storage_->Exists(JoinPath(root_, "step-2/.metadata")));
  EXPECT_EQ(*storage_->ReadSmall(JoinPath(root_, "step-1/.metadata")), "{}");
  ASSERT_TRUE(storage_->RemoveTree(JoinPath(root_, "step-1")).ok());
  EXPECT_FALSE(*storage_->Exists(JoinPath(root_, "step-1/.metadata")));
  EXPECT_TRUE(storage_->RemoveTree(JoinPath(root_, "missing")).ok());
}

// A dataset's listing: every object under the directory at any depth, with
// its size and its name below the directory; a sibling whose name starts
// the same is not under it; more than the bound is refused.
TEST_P(StorageConformance, ListTreeFindsEveryObjectBelowWithItsSize) {
  const std::string dir = JoinPath(root_, "data");
  ASSERT_TRUE(storage_->CreateDirs(JoinPath(dir, "a/b")).ok());
  ASSERT_TRUE(storage_->WriteAtomic(JoinPath(dir, "x.jpg"), "12345").ok());
  ASSERT_TRUE(storage_->WriteAtomic(JoinPath(dir, "a/b/y z&.jpg"), "").ok());
  ASSERT_TRUE(storage_->WriteAtomic(JoinPath(dir, "a/w.tar"), "abc").ok());
  ASSERT_TRUE(storage_->WriteAtomic(JoinPath(root_, "data2"), "no").ok());
  auto listed = storage_->ListTree(dir, AtMost(10));
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::map<std::string, uint64_t> got;
  for (const ListedObject& o : *listed) got[o.name] = o.size;
  EXPECT_EQ(got, (std::map<std::string, uint64_t>{
                     {"a/b/y z&.jpg", 0}, {"a/w.tar", 3}, {"x.jpg", 5}}));
  auto bounded = storage_->ListTree(dir, AtMost(2));
  EXPECT_TRUE(absl::IsResourceExhausted(bounded.status())) << bounded.status();
  EXPECT_TRUE(absl::IsNotFound(
      storage_->ListTree(JoinPath(root_, "none"), AtMost(10)).status()));
}

TEST_P(StorageConformance, RemoveFilesTouchesOnlyTheNamedEntries) {
  auto put = [&](const std::string& rel) {
    ASSERT_TRUE(storage_->WriteAtomic(JoinPath(root_, rel), "x").ok()) << rel;
  };
  ASSERT_TRUE(storage_->CreateDirs(JoinPath(root_, "step-1")).ok());
  ASSERT_TRUE(storage_->CreateDirs(JoinPath(root_, "step-2")).ok());
  put("step-1/a");
  put("step-1/b");
  put("step-1/someone-elses");
  put("step-2/a");
  ASSERT_TRUE(
      storage_->RemoveFiles(JoinPath(root_, "step-1"), {"a", "b", "gone"})
          .ok());
  EXPECT_FALSE(*storage_->Exists(JoinPath(root_, "step-1/a")));
  EXPECT_FALSE(*storage_->Exists(JoinPath(root_, "step-1/b")));
  // What the caller did not name stays, and so does its directory.
  EXPECT_TRUE(*storage_->Exists(JoinPath(root_, "step-1/someone-elses")));
  auto left = storage_->ListDir(JoinPath(root_, "step-1"));
  ASSERT_TRUE(left.ok()) << left.status();
  EXPECT_EQ(*left, (std::vector<std::string>{"someone-elses"}));
  // A directory the named entries filled alone goes with them.
  ASSERT_TRUE(storage_->RemoveFiles(JoinPath(root_, "step-2"), {"a"}).ok());
  EXPECT_FALSE(*storage_->Exists(JoinPath(root_, "step-2")));
  auto names = storage_->ListDir(root_);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"step-1"}));
  EXPECT_TRUE(storage_->RemoveFiles(JoinPath(root_, "missing"), {"a"}).ok());
}

TEST_P(StorageConformance, ClaimDirLetsExactlyOneOfManyRacingClaimsWin) {
  const std::string dir = JoinPath(root_, "checkpoints/step-1");
  std::vector<absl::StatusOr<std::string>> got(8, absl::UnknownError(""));
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      got[i] = storage_->ClaimDir(dir, "run" + std::to_string(i));
    });
  }
  for (auto& t : threads) t.join();
  int winner = -1;
  for (int i = 0; i < 8; ++i) {
    if (got[i].ok()) {
      EXPECT_EQ(winner, -1) << "two winners";
      winner = i;
    } else {
      EXPECT_TRUE(absl::IsAlreadyExists(got[i].status())) << got[i].status();
    }
  }
  ASSERT_GE(winner, 0);
  EXPECT_EQ(*got[winner], kClaimName);
  auto held = storage_->ReadSmall(JoinPath(dir, kClaimName));
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_EQ(*held, "run" + std::to_string(winner));
  // Released (what cleanup does), the step can be claimed again.
  ASSERT_TRUE(storage_->RemoveFiles(dir, {kClaimName}).ok());
  EXPECT_TRUE(storage_->ClaimDir(dir, "later").ok());
  // A directory holding anything is not free.
  ASSERT_TRUE(storage_->CreateDirs(JoinPath(root_, "checkpoints/step-2")).ok());
  ASSERT_TRUE(
      storage_->WriteAtomic(JoinPath(root_, "checkpoints/step-2/x"), "y").ok());
  EXPECT_TRUE(absl::IsAlreadyExists(
      storage_->ClaimDir(JoinPath(root_, "checkpoints/step-2"), "z").status()));
}

TEST_P(StorageConformance, MissingIsNotFound) {
  EXPECT_TRUE(absl::IsNotFound(
      storage_->OpenRead(JoinPath(root_, "nope"), {}).status()));
  EXPECT_TRUE(
      absl::IsNotFound(storage_->ListDir(JoinPath(root_, "nodir")).status()));
}

// Asked to evict, a backend says how it kept the read cold and over how
// many bytes; asked not to ("none"), it touches nothing and says so.
TEST_P(StorageConformance, ColdReadReportsTheMethodAndWhatItChecked) {
  std::string path = JoinPath(root_, "c.bin");
  ASSERT_TRUE(storage_->CreateDirs(root_).ok());
  ASSERT_TRUE(storage_->WriteAtomic(path, std::string(1 << 20, 'z')).ok());
  auto none = storage_->PrepareColdRead({path}, CacheMode::kNone,
                                        DirectFallback::kAvailable);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->method, CacheMethod::kNone);
  auto cold = storage_->PrepareColdRead({path}, CacheMode::kFadvise,
                                        DirectFallback::kAvailable);
  ASSERT_TRUE(cold.ok()) << cold.status();
  if (storage_->Kind() == StorageKind::kMemory) {
    EXPECT_EQ(cold->method, CacheMethod::kNone);  // no page cache to evict
    EXPECT_NE(cold->note.find("no page cache"), std::string::npos);
    return;
  }
  if (GetParam().object_store) {
    EXPECT_EQ(cold->method,
              CacheMethod::kNone);  // every read goes to the server
    EXPECT_NE(cold->note.find("object storage"), std::string::npos)
        << cold->note;
    return;
  }
  // tmpfs says "memory" (nothing is ever cold there), overlay "o_direct"
  // (fadvise cannot evict it), other file systems evict with fadvise.
  const std::set<CacheMethod> methods = {CacheMethod::kFadviseDontneed,
                                         CacheMethod::kMemory,
                                         CacheMethod::kODirect};
  EXPECT_TRUE(methods.count(cold->method)) << Name(cold->method);
  if (cold->method == CacheMethod::kFadviseDontneed) {
    // What it checked, and what stayed (0 where eviction works; inside an
    // image build's overlay it may not, which the load then flags).
    EXPECT_EQ(cold->checked_bytes, 1u << 20);
    EXPECT_LE(cold->resident_bytes, cold->checked_bytes) << cold->note;
  }
}

}  // namespace
}  // namespace ckpt
