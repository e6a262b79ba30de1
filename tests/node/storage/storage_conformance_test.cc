// One conformance suite every Storage backend passes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <thread>

#include "node/storage/memory_storage.h"
#include "node/storage/page_cache.h"
#include "node/storage/posix_storage.h"
#include "node/storage/storage_factory.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

struct Backend {
  std::string name;
  std::function<std::string(TempDir&)> root;
};

class StorageConformance : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    root_ = GetParam().root(tmp_);
    auto loc = OpenStorage(root_);
    ASSERT_TRUE(loc.ok()) << loc.status();
    storage_ = std::move(loc->storage);
    root_ = loc->path;
  }
  TempDir tmp_;
  std::string root_;
  std::shared_ptr<Storage> storage_;
};

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
  EXPECT_EQ(*names, (std::vector<std::string>{"step-1", "step-2"}));
  EXPECT_TRUE(*storage_->Exists(JoinPath(root_, "step-1/.metadata")));
  EXPECT_FALSE(*storage_->Exists(JoinPath(root_, "step-2/.metadata")));
  EXPECT_EQ(*storage_->ReadSmall(JoinPath(root_, "step-1/.metadata")), "{}");
  ASSERT_TRUE(storage_->RemoveTree(JoinPath(root_, "step-1")).ok());
  EXPECT_FALSE(*storage_->Exists(JoinPath(root_, "step-1/.metadata")));
  EXPECT_TRUE(storage_->RemoveTree(JoinPath(root_, "missing")).ok());
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
  auto none = storage_->PrepareColdRead({path}, "none");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->method, "none");
  auto cold = storage_->PrepareColdRead({path}, "fadvise");
  ASSERT_TRUE(cold.ok()) << cold.status();
  if (storage_->Kind() == "memory") {
    EXPECT_EQ(cold->method, "none");  // no page cache to evict
    EXPECT_NE(cold->note.find("no page cache"), std::string::npos);
    return;
  }
  // tmpfs says "memory" (nothing is ever cold there), overlay "o_direct"
  // (fadvise cannot evict it), other file systems evict with fadvise.
  const std::set<std::string> methods = {"fadvise_dontneed", "memory",
                                         "o_direct"};
  EXPECT_TRUE(methods.count(cold->method)) << cold->method;
  if (cold->method == "fadvise_dontneed") {
    // What it checked, and what stayed (0 where eviction works; inside an
    // image build's overlay it may not, which the load then flags).
    EXPECT_EQ(cold->checked_bytes, 1u << 20);
    EXPECT_LE(cold->resident_bytes, cold->checked_bytes) << cold->note;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backends, StorageConformance,
    ::testing::Values(
        Backend{"posix", [](TempDir& t) { return t.Sub("root"); }},
        Backend{"posix_file_uri",
                [](TempDir& t) { return "file://" + t.Sub("root"); }},
        Backend{"memory",
                [](TempDir&) { return std::string("mem://bucket/root"); }}),
    [](const auto& info) { return info.param.name; });

// Posix-only: fadvise really evicts, measured with mincore.
// Writes `bytes` to `path` and fsyncs it: the pages are then clean and
// resident, as a checkpoint file is right after its save.
void WriteSynced(const std::string& path, size_t bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << path;
  std::string data(bytes, 'h');
  ASSERT_EQ(write(fd, data.data(), data.size()),
            static_cast<ssize_t>(data.size()));
  ASSERT_EQ(fsync(fd), 0);
  close(fd);
}

// The probe's decision on a directory, checked against what the file system
// really does with a fresh 8 MiB file, and against the method a load then
// uses. `expect_memory`: the directory is known to be tmpfs.
void CheckProbeDecision(const std::string& dir, bool expect_memory) {
  EvictionProbe probe = ProbeEviction(dir);
  ASSERT_TRUE(probe.error.empty()) << probe.error;
  EXPECT_EQ(probe.memory_backed, expect_memory) << probe.Describe();
  EXPECT_EQ(probe.probe_bytes, 1u << 20);
  // The probe's own file is gone.
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".ckptbench-cache-probe"),
              std::string::npos)
        << e.path();
  }
  // Each check on a new file, as a save makes them: on overlayfs an
  // existing file rewritten in place behaves otherwise.
  const std::string fresh = dir + "/fresh.bin";
  WriteSynced(fresh, 8 << 20);
  ASSERT_TRUE(FadviseDontNeed(fresh).ok());
  auto resident = ResidentBytes(fresh);
  ASSERT_TRUE(resident.ok());
  // What fadvise really did to a fresh file is what the probe predicted.
  EXPECT_EQ(*resident == 0, probe.fadvise_evicts)
      << probe.Describe() << "; an 8 MiB file kept " << *resident;

  std::string path = dir + "/hot1.bin";
  WriteSynced(path, 8 << 20);
  auto rep = PosixStorage::Make().value()->PrepareColdRead({path}, "fadvise");
  ASSERT_TRUE(rep.ok()) << rep.status();
  EXPECT_FALSE(rep->probe.empty());
  if (expect_memory) {
    EXPECT_EQ(rep->method, "memory");
    EXPECT_NE(rep->note.find("never cold"), std::string::npos) << rep->note;
    return;
  }
  if (probe.fadvise_evicts) {
    // Where fadvise evicts, a load says so and nothing stays resident.
    EXPECT_EQ(rep->method, "fadvise_dontneed");
    EXPECT_EQ(rep->resident_bytes, 0u);
  } else {
    // Asked for fadvise where it cannot evict: the residue is reported.
    EXPECT_EQ(rep->method, "fadvise_dontneed");
    EXPECT_GT(rep->resident_bytes, 0u);
  }
  // "auto" drops the host's caches as root: not from a unit test.
  if (CanDropCaches()) return;
  path = dir + "/hot2.bin";
  WriteSynced(path, 8 << 20);
  auto autorep = PosixStorage::Make().value()->PrepareColdRead({path}, "auto");
  ASSERT_TRUE(autorep.ok()) << autorep.status();
  if (probe.fadvise_evicts) {
    EXPECT_EQ(autorep->method, "fadvise_dontneed");
    EXPECT_EQ(autorep->resident_bytes, 0u);
  } else {
    // Where it cannot (overlayfs), loads read with O_DIRECT, said up front.
    EXPECT_EQ(autorep->method, probe.direct_reads ? "o_direct" : "none");
    EXPECT_NE(autorep->note.find("does not evict"), std::string::npos)
        << autorep->note;
  }
}

TEST(PosixPageCache, ProbeDecisionMatchesTheTempFileSystem) {
  TempDir tmp;
  struct statfs sf;
  ASSERT_EQ(statfs(tmp.path().c_str(), &sf), 0);
  std::printf("temp dir %s: %s\n", tmp.path().c_str(),
              ProbeEviction(tmp.path()).Describe().c_str());
  CheckProbeDecision(tmp.path(), sf.f_type == TMPFS_MAGIC);
}

TEST(PosixPageCache, ProbeSaysTmpfsIsMemoryBacked) {
  struct statfs sf;
  if (statfs("/dev/shm", &sf) != 0 || sf.f_type != TMPFS_MAGIC)
    GTEST_SKIP() << "/dev/shm is not a tmpfs here";
  char tmpl[] = "/dev/shm/ckptbench-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  CheckProbeDecision(dir, /*expect_memory=*/true);
  std::filesystem::remove_all(dir);
}

TEST(PosixPageCache, ProbeOfAnUnwritableDirectorySaysWhy) {
  EvictionProbe p = ProbeEviction("/nonexistent-ckptbench-dir");
  EXPECT_NE(p.error.find("/nonexistent-ckptbench-dir"), std::string::npos)
      << p.error;
  EXPECT_NE(p.Describe().find("could not run"), std::string::npos);
}

TEST(PosixStorage, DirectReadAndWriteWork) {
  TempDir tmp;
  auto storage = PosixStorage::Make().value();
  std::string path = tmp.Sub("direct.bin");
  auto w = storage->OpenWrite(path, {.direct = true});
  if (!w.ok()) GTEST_SKIP() << w.status();
  void* buf = nullptr;
  ASSERT_EQ(posix_memalign(&buf, 4096, 3 * 4096), 0);
  std::memset(buf, 'd', 3 * 4096);
  ASSERT_TRUE((*w)->Append(buf, 2 * 4096).ok());
  ASSERT_TRUE((*w)->Append(buf, 100).ok());  // unaligned tail
  ASSERT_TRUE((*w)->Close().ok());
  auto r =
      storage->OpenRead(path, {.direct = true, .extents = {}, .beneath = ""});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->Size(), 2u * 4096 + 100);
  auto n = (*r)->Read(0, buf, 3 * 4096);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 2u * 4096 + 100);
  std::free(buf);
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// The fuse flavour never truncates or overwrites a file in place (a hard
// link to the old file keeps the old bytes: a new file was made), never
// asks for O_DIRECT, and writes small files without a temporary name.
TEST(PosixStorage, FuseFlavourMakesNewFilesAndNeverUsesDirectIo) {
  TempDir t;
  auto fuse = PosixStorage::Make("fuse").value();
  auto local = PosixStorage::Make("local").value();
  EXPECT_EQ(fuse->Kind(), "fuse");
  EXPECT_EQ(local->Kind(), "posix");
  const std::string a = t.Sub("a"), b = t.Sub("b");
  ASSERT_TRUE(local->WriteAtomic(a, "old bytes").ok());
  ASSERT_EQ(link(a.c_str(), b.c_str()), 0);
  WriteOptions direct;
  direct.direct = true;  // a fuse mount would refuse it: not passed on
  auto f = fuse->OpenWrite(a, direct);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE((*f)->Append("new", 3).ok());
  ASSERT_TRUE((*f)->Sync().ok());
  ASSERT_TRUE((*f)->Close().ok());
  EXPECT_EQ(*fuse->ReadSmall(a), "new");
  EXPECT_EQ(*fuse->ReadSmall(b), "old bytes");
  // The local flavour truncates in place: a link sees the new bytes.
  const std::string c = t.Sub("c");
  ASSERT_EQ(link(a.c_str(), c.c_str()), 0);
  auto g = local->OpenWrite(a, {});
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE((*g)->Append("local", 5).ok());
  ASSERT_TRUE((*g)->Close().ok());
  EXPECT_EQ(*local->ReadSmall(c), "local");
  ASSERT_TRUE(fuse->WriteAtomic(t.Sub("meta"), "{}").ok());
  auto names = fuse->ListDir(t.path());
  ASSERT_TRUE(names.ok());
  for (const auto& n : *names) EXPECT_EQ(n.find(".tmp"), std::string::npos);
  EXPECT_EQ(fuse->Filesystem(t.path()).options.rfind("flavour=fuse,", 0), 0u);
  // auto: /proc is not a FUSE mount.
  EXPECT_EQ(PosixStorage::Make("auto", "/proc").value()->Kind(), "posix");
}

}  // namespace
}  // namespace ckpt
