// The storage conformance suite on posix, file:// and memory, and the
// posix backend's own page-cache checks.
#include "tests/testing/storage_conformance.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include "node/storage/memory_storage.h"
#include "node/storage/page_cache.h"
#include "node/storage/posix_cold_read.h"
#include "node/storage/posix_storage.h"
#include "node/storage/storage_factory.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

// The suite's cases (tests/testing/storage_conformance.cc) on the backends
// without a server; each open is a one-off StorageSet (a memory store of
// its own).
INSTANTIATE_TEST_SUITE_P(
    Backends, StorageConformance,
    ::testing::Values(
        ConformanceBackend{
            "posix", [](TempDir& t) { return OpenStorage(t.Sub("root")); }},
        ConformanceBackend{
            "posix_file_uri",
            [](TempDir& t) { return OpenStorage("file://" + t.Sub("root")); }},
        ConformanceBackend{
            "memory",
            [](TempDir&) { return OpenStorage("mem://bucket/root"); }}),
    ConformanceName);

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
  auto rep = PosixStorage::Make().value()->PrepareColdRead(
      {path}, CacheMode::kFadvise, DirectFallback::kAvailable);
  ASSERT_TRUE(rep.ok()) << rep.status();
  EXPECT_FALSE(rep->probe.empty());
  if (expect_memory) {
    EXPECT_EQ(rep->method, CacheMethod::kMemory);
    EXPECT_NE(rep->note.find("never cold"), std::string::npos) << rep->note;
    return;
  }
  if (probe.fadvise_evicts) {
    // Where fadvise evicts, a load says so and nothing stays resident.
    EXPECT_EQ(rep->method, CacheMethod::kFadviseDontneed);
    EXPECT_EQ(rep->resident_bytes, 0u);
  } else {
    // Asked for fadvise where it cannot evict: the residue is reported.
    EXPECT_EQ(rep->method, CacheMethod::kFadviseDontneed);
    EXPECT_GT(rep->resident_bytes, 0u);
  }
  // "auto" drops the host's caches as root: not from a unit test.
  if (CanDropCaches()) return;
  path = dir + "/hot2.bin";
  WriteSynced(path, 8 << 20);
  auto autorep = PosixStorage::Make().value()->PrepareColdRead(
      {path}, CacheMode::kAuto, DirectFallback::kAvailable);
  ASSERT_TRUE(autorep.ok()) << autorep.status();
  // Reads that cannot use O_DIRECT (a serve stream, a data loader): never
  // promised it; what stayed is reported.
  const std::string hot3 = dir + "/hot3.bin";
  WriteSynced(hot3, 8 << 20);
  auto cached = PosixStorage::Make().value()->PrepareColdRead(
      {hot3}, CacheMode::kAuto, DirectFallback::kUnavailable);
  ASSERT_TRUE(cached.ok()) << cached.status();
  EXPECT_EQ(cached->method, CacheMethod::kFadviseDontneed);
  EXPECT_EQ(cached->resident_bytes == 0, probe.fadvise_evicts);
  if (probe.fadvise_evicts) {
    EXPECT_EQ(autorep->method, CacheMethod::kFadviseDontneed);
    EXPECT_EQ(autorep->resident_bytes, 0u);
  } else {
    EXPECT_NE(cached->note.find("cannot use O_DIRECT"), std::string::npos)
        << cached->note;
    // Where it cannot (overlayfs), loads read with O_DIRECT, said up front.
    EXPECT_EQ(autorep->method,
              probe.direct_reads ? CacheMethod::kODirect : CacheMethod::kNone);
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

// What an eviction left: io.cache_mode=auto reads it with O_DIRECT only
// where the reads can (a checkpoint load); a serve stream's or a data
// loader's reads keep the method that evicted and say what stayed, so the
// round is flagged rather than labelled o_direct. A method asked for by
// name, or nothing left, changes nothing.
TEST(PosixPageCache, ResidueIsReadWithODirectOnlyByReadsThatCanUseIt) {
  CacheReport left;
  left.method = CacheMethod::kDropCaches;
  left.resident_bytes = 8192;
  CacheReport direct = left;
  SettleResidue(CacheMode::kAuto, DirectFallback::kAvailable, &direct);
  EXPECT_EQ(direct.method, CacheMethod::kODirect);
  EXPECT_EQ(direct.note,
            "drop_caches left 8192 bytes cached; reading with O_DIRECT");
  CacheReport cached = left;
  SettleResidue(CacheMode::kAuto, DirectFallback::kUnavailable, &cached);
  EXPECT_EQ(cached.method, CacheMethod::kDropCaches);
  EXPECT_EQ(cached.resident_bytes, 8192u);
  EXPECT_EQ(cached.note,
            "drop_caches left 8192 bytes cached, and these reads cannot use "
            "O_DIRECT: they may be served by the page cache");
  CacheReport asked = left;
  asked.method = CacheMethod::kFadviseDontneed;
  SettleResidue(CacheMode::kFadvise, DirectFallback::kAvailable, &asked);
  EXPECT_EQ(asked.method, CacheMethod::kFadviseDontneed);
  EXPECT_TRUE(asked.note.empty());
  CacheReport clean = left;
  clean.resident_bytes = 0;
  SettleResidue(CacheMode::kAuto, DirectFallback::kAvailable, &clean);
  EXPECT_EQ(clean.method, CacheMethod::kDropCaches);
  EXPECT_TRUE(clean.note.empty());
}

// What a reader finds cached before it reads (a serve load's figure of
// what the host's page cache served): nothing once the file is evicted,
// then what was read. A reader without read-ahead brings in no more than
// the pages it read; one with it, as a loader's, may bring more.
TEST(PosixPageCache, AReaderSaysWhatOfARangeIsCachedBeforeItReads) {
  TempDir tmp;
  const EvictionProbe probe = ProbeEviction(tmp.path());
  if (!probe.fadvise_evicts || probe.memory_backed) {
    GTEST_SKIP() << "fadvise cannot evict here: " << probe.Describe();
  }
  const std::string path = tmp.Sub("cached.bin");
  WriteSynced(path, 4 << 20);
  ASSERT_TRUE(FadviseDontNeed(path).ok());
  auto storage = PosixStorage::Make().value();
  ReadOptions quiet;
  quiet.no_readahead = true;
  auto f = storage->OpenRead(path, quiet);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)->CachedBytes(0, 4 << 20), 0u);
  std::string buf(64 << 10, '\0');
  ASSERT_EQ(*(*f)->Read(0, buf.data(), buf.size()), buf.size());
  EXPECT_EQ((*f)->CachedBytes(0, 64 << 10), uint64_t{64 << 10});
  // Only what was read: no read-ahead past it.
  EXPECT_LE(*(*f)->CachedBytes(0, 4 << 20), uint64_t{128 << 10});
  // A part of a page counts its part; past the end counts nothing.
  EXPECT_EQ((*f)->CachedBytes(100, 50), 50u);
  EXPECT_EQ((*f)->CachedBytes(4 << 20, 10), 0u);
  ASSERT_TRUE((*f)->Close().ok());
  // Memory storage has no page cache to tell of.
  auto memory = MemoryStorage::Make(std::make_shared<MemoryStore>());
  ASSERT_TRUE(memory->WriteAtomic("/m.bin", "bytes").ok());
  auto m = memory->OpenRead("/m.bin", ReadOptions{});
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE((*m)->CachedBytes(0, 5).has_value());
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
  auto r = storage->OpenRead(
      path, {.direct = true, .extents = {}, .beneath = "", .size = {}});
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

// Neither flavour truncates or overwrites a file in place (a hard link to
// the old file keeps the old bytes: a new file was made); the fuse flavour
// never asks for O_DIRECT, and writes small files without a temporary name.
TEST(PosixStorage, FuseFlavourMakesNewFilesAndNeverUsesDirectIo) {
  TempDir t;
  auto fuse = PosixStorage::Make(StorageFlavour::kFuse).value();
  auto local = PosixStorage::Make(StorageFlavour::kLocal).value();
  EXPECT_EQ(fuse->Kind(), StorageKind::kFuse);
  EXPECT_EQ(local->Kind(), StorageKind::kPosix);
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
  // The local flavour makes a new file too (it truncated in place, and a
  // hard link planted beside a dataset's object had its bytes rewritten).
  const std::string c = t.Sub("c");
  ASSERT_EQ(link(a.c_str(), c.c_str()), 0);
  auto g = local->OpenWrite(a, {});
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE((*g)->Append("local", 5).ok());
  ASSERT_TRUE((*g)->Close().ok());
  EXPECT_EQ(*local->ReadSmall(a), "local");
  EXPECT_EQ(*local->ReadSmall(c), "new");
  ASSERT_TRUE(fuse->WriteAtomic(t.Sub("meta"), "{}").ok());
  auto names = fuse->ListDir(t.path());
  ASSERT_TRUE(names.ok());
  for (const auto& n : *names) EXPECT_EQ(n.find(".tmp"), std::string::npos);
  EXPECT_EQ(fuse->Filesystem(t.path()).options.rfind("flavour=fuse,", 0), 0u);
  // auto: /proc is not a FUSE mount.
  EXPECT_EQ(PosixStorage::Make(StorageFlavour::kAuto, "/proc").value()->Kind(),
            StorageKind::kPosix);
}

// Posix: links, FIFOs and sockets under a listed dataset are refused,
// named; a link is not followed out of it.
TEST(PosixStorage, ListTreeRefusesLinksAndSpecialFiles) {
  TempDir t;
  std::filesystem::create_directories(t.Sub("ds/sub"));
  { std::ofstream(t.Sub("ds/sub/a.jpg")) << "abc"; }
  auto storage = PosixStorage::Make().value();
  auto ok = storage->ListTree(t.Sub("ds"), AtMost(10));
  ASSERT_TRUE(ok.ok()) << ok.status();
  ASSERT_EQ(ok->size(), 1u);
  EXPECT_EQ((*ok)[0].name, "sub/a.jpg");
  EXPECT_EQ((*ok)[0].size, 3u);
  ASSERT_EQ(mkfifo(t.Sub("ds/sub/pipe").c_str(), 0600), 0);
  auto fifo = storage->ListTree(t.Sub("ds"), AtMost(10));
  EXPECT_TRUE(absl::IsFailedPrecondition(fifo.status())) << fifo.status();
  EXPECT_NE(fifo.status().message().find("sub/pipe is a link, device, FIFO"),
            std::string::npos)
      << fifo.status();
  std::filesystem::remove(t.Sub("ds/sub/pipe"));
  std::filesystem::create_directory_symlink("/etc", t.Sub("ds/etc"));
  auto link = storage->ListTree(t.Sub("ds"), AtMost(10));
  EXPECT_TRUE(absl::IsFailedPrecondition(link.status())) << link.status();
}

}  // namespace
}  // namespace ckpt
