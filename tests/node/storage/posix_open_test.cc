// The file-system backend on hostile ground (issue 27): links, FIFOs and
// sockets planted in a checkpoints directory, and a step directory swapped
// for a link while a run uses it. Nothing outside the checkpoints
// directory is read, written or removed.
#include "node/storage/posix_open.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "node/storage/memory_storage.h"
#include "node/storage/posix_storage.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// checkpoints/step-1 holding one shard, and a victim directory outside
// holding files of the same names.
struct Tree {
  Tree() {
    fs::create_directories(step());
    std::ofstream(step() + "/__0_0.distcp") << "ours";
    fs::create_directories(victim());
    for (const char* n : {"__0_0.distcp", ".metadata", ".ckptbench-claim"}) {
      std::ofstream(victim() + "/" + n) << "victim";
    }
  }
  std::string ckpt() const { return t.Sub("ckpt/checkpoints"); }
  std::string step() const { return ckpt() + "/step-1"; }
  std::string victim() const { return t.Sub("victim"); }
  // step-1 replaced by a link to the victim directory.
  void SwapStepForALink() const {
    fs::rename(step(), ckpt() + "/moved");
    fs::create_symlink(victim(), step());
  }
  bool VictimIntact() const {
    for (const char* n : {"__0_0.distcp", ".metadata", ".ckptbench-claim"}) {
      std::ifstream in(victim() + "/" + n);
      std::string s;
      in >> s;
      if (s != "victim") return false;
    }
    return true;
  }
  TempDir t;
};

TEST(PosixBeneath, AStepSwappedForALinkIsNeitherEmptiedNorWritten) {
  Tree tree;
  tree.SwapStepForALink();
  auto storage = PosixStorage::Make().value();
  // Retention or a failed save's cleanup.
  absl::Status removed = storage->RemoveFiles(
      tree.step(), {".metadata", "__0_0.distcp", ".ckptbench-claim"});
  EXPECT_FALSE(removed.ok());
  EXPECT_NE(removed.message().find(tree.step() + " is not a directory (a "
                                                 "symbolic link"),
            std::string::npos)
      << removed;
  // The commit and a shard's write.
  EXPECT_FALSE(storage->WriteAtomic(tree.step() + "/.metadata", "commit").ok());
  auto w = storage->OpenWrite(tree.step() + "/__0_0.distcp", WriteOptions{});
  EXPECT_FALSE(w.ok());
  EXPECT_TRUE(tree.VictimIntact());
  // Reads through the link leave the checkpoints directory: refused.
  auto r = storage->OpenRead(tree.step() + "/__0_0.distcp", ReadOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            tree.step() + "/__0_0.distcp leads outside " + tree.ckpt() +
                " (a symbolic link or '..' that leaves it): refused; "
                "ckptbench reads and writes only beneath the directory it "
                "was given");
}

TEST(PosixBeneath, ALinkPlantedWhereAShardGoesIsNotWrittenThrough) {
  Tree tree;
  fs::remove(tree.step() + "/__0_0.distcp");
  fs::create_symlink(tree.victim() + "/__0_0.distcp",
                     tree.step() + "/__0_0.distcp");
  auto storage = PosixStorage::Make().value();
  auto w = storage->OpenWrite(tree.step() + "/__0_0.distcp", WriteOptions{});
  EXPECT_FALSE(w.ok());
  // A planted temporary of the commit's old fixed name changes nothing.
  fs::create_symlink(tree.victim() + "/.metadata",
                     tree.step() + "/.metadata.tmp");
  ASSERT_TRUE(storage->WriteAtomic(tree.step() + "/.metadata", "ours").ok());
  EXPECT_TRUE(
      fs::is_regular_file(fs::symlink_status(tree.step() + "/.metadata")));
  EXPECT_TRUE(tree.VictimIntact());
}

TEST(PosixBeneath, RemovalTouchesOnlyTheNamedEntriesOfARealDirectory) {
  Tree tree;
  std::ofstream(tree.step() + "/other") << "not ours";
  ASSERT_TRUE(RemoveBeneath(tree.step(), {"__0_0.distcp", "missing"}).ok());
  EXPECT_FALSE(fs::exists(tree.step() + "/__0_0.distcp"));
  EXPECT_TRUE(fs::exists(tree.step() + "/other"));  // so the step stays
  ASSERT_TRUE(RemoveBeneath(tree.step(), {"other"}).ok());
  EXPECT_FALSE(fs::exists(tree.step()));
  EXPECT_FALSE(RemoveBeneath(tree.ckpt(), {"../x"}).ok());
}

TEST(PosixBeneath, SocketsAndFifosAreRefusedByKindWithoutBlocking) {
  Tree tree;
  const std::string sock = tree.step() + "/sock.distcp";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.size(), sizeof(addr.sun_path));
  std::copy(sock.begin(), sock.end(), addr.sun_path);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  auto s = OpenBeneath(sock, O_RDONLY);
  close(fd);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            sock +
                " is a socket or a device: refused (expected a regular "
                "file)");
  const std::string fifo = tree.step() + "/fifo.distcp";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto f = OpenBeneath(fifo, O_RDONLY);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(),
            fifo + " is a FIFO: refused (expected a regular file)");
}

TEST(PosixBeneath, LinksInsideTheCheckpointsDirectoryAreFollowedForReads) {
  Tree tree;
  fs::create_directories(tree.ckpt() + "/step-2");
  fs::create_symlink("../step-1/__0_0.distcp",
                     tree.ckpt() + "/step-2/__0_0.distcp");
  auto fd = OpenBeneath(tree.ckpt() + "/step-2/__0_0.distcp", O_RDONLY);
  ASSERT_TRUE(fd.ok()) << fd.status();
  close(*fd);
}

// A file opened for reading is blocking again once its kind is checked:
// O_NONBLOCK (there so that a FIFO cannot hold the open) is cleared from
// the flags it was opened with, without asking for them (F_GETFL), and
// the size comes from the same fstat.
TEST(PosixBeneath, AFileOpenedBeneathIsBlockingAndItsSizeKnown) {
  Tree tree;
  uint64_t size = 0;
  auto fd = OpenBeneath(tree.step() + "/__0_0.distcp", O_RDONLY, "", 0, &size);
  ASSERT_TRUE(fd.ok()) << fd.status();
  EXPECT_EQ(fcntl(*fd, F_GETFL) & O_NONBLOCK, 0);
  EXPECT_EQ(size, 4u);
  close(*fd);
}

// A location's reads resolve it once: after the first read beneath it, the
// backend holds the directory, so a location renamed and replaced by a
// link to another directory during the run still gives the files of the
// directory the run started reading (each sample does not open it again).
TEST(PosixBeneath, ALocationsReadsStayInTheDirectoryTheFirstReadOpened) {
  Tree tree;
  const std::string data = tree.t.Sub("data");
  fs::create_directories(data + "/samples");
  std::ofstream(data + "/samples/a.jpg") << "ours";
  fs::create_directories(tree.victim() + "/samples");
  std::ofstream(tree.victim() + "/samples/a.jpg") << "victim!";
  PosixStorage storage(PosixStorage::Flavour::kLocal, nullptr, data);
  auto Read = [&]() -> std::string {
    auto f = storage.OpenRead(data + "/samples/a.jpg", ReadOptions{});
    if (!f.ok()) return f.status().ToString();
    std::string text((*f)->Size(), '\0');
    auto n = (*f)->Read(0, text.data(), text.size());
    (void)(*f)->Close();
    return n.ok() ? text.substr(0, *n) : n.status().ToString();
  };
  EXPECT_EQ(Read(), "ours");
  fs::rename(data, tree.t.Sub("data-moved"));
  fs::create_directory_symlink(tree.victim(), data);
  EXPECT_EQ(Read(), "ours");
  // A backend that has not read there yet resolves the location as given.
  PosixStorage fresh(PosixStorage::Flavour::kLocal, nullptr, data);
  auto f = fresh.OpenRead(data + "/samples/a.jpg", ReadOptions{});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)->Size(), 7u);
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// Issue 27: a listing's entries are checked on every backend before use; a
// key such as "d/../x" (legal on S3) lists as "..", which an HTTP client
// would collapse into another key.
TEST(ListEntries, EntriesThatCannotBeNamesAreDroppedOnEveryBackend) {
  auto mem = MemoryStorage::Make(std::make_shared<MemoryStore>());
  for (const char* key : {"mem://le/d/step-1/.metadata", "mem://le/d/../x",
                          "mem://le/d/a\nb/c", "mem://le/d/step-2"}) {
    ASSERT_TRUE(mem->WriteAtomic(key, "x").ok()) << key;
  }
  auto raw = mem->ListDir("mem://le/d");
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_EQ(raw->size(), 4u);  // the backend lists what is there
  auto names = ListEntries(*mem, "mem://le/d");
  ASSERT_TRUE(names.ok()) << names.status();
  std::sort(names->begin(), names->end());
  EXPECT_EQ(*names, (std::vector<std::string>{"step-1", "step-2"}));
}

}  // namespace
}  // namespace ckpt
