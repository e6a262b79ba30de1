// Hostile datasets as a user's command meets them (`ckptbench datagen`,
// `ckptbench run` of a dataload): a dataset directory whose `samples/` was
// swapped for a symbolic link, a hard link planted where an object goes.
// What lies outside the dataset must survive byte for byte; the command
// fails naming what it refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// Every regular file under `dir`, by path, with its bytes.
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[e.path().string()] = ReadFile(e.path());
  }
  return files;
}

void Write(const std::string& path, const std::string& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// A files-format dataset of 8 small samples under 4 hash prefixes.
ProcessResult DatagenFilesDataset(const TempDir& t,
                                  std::vector<std::string> args = {}) {
  args.insert(args.begin(), "datagen");
  args.push_back("-q");
  return RunCkptbench(args, {{"CKPT_DATASET_PATH", t.Sub("ds")},
                             {"CKPT_DATASET_FORMAT", "files"},
                             {"CKPT_DATASET_SPREAD_PREFIXES", "4"},
                             {"CKPT_DATASET_SAMPLES", "8"},
                             {"CKPT_SAMPLE_BYTES", "4KiB"},
                             {"CKPT_SAMPLE_SPREAD", "0"}});
}

// A dataset made at ds/, its samples/ then moved to elsewhere/samples.
void MadeWithSamplesElsewhere(const TempDir& t) {
  ProcessResult made = DatagenFilesDataset(t);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  fs::create_directories(t.Sub("elsewhere"));
  fs::rename(t.Sub("ds/samples"), t.Sub("elsewhere/samples"));
}

// --remove through a `samples/` that was moved elsewhere and replaced by a
// link: nothing behind the link is deleted (it deleted the 8 files and
// both prefix directories), and the command fails naming the link.
TEST(HostileDataset, RemoveThroughASymlinkedSamplesDirectoryDeletesNothing) {
  TempDir t;
  ASSERT_NO_FATAL_FAILURE(MadeWithSamplesElsewhere(t));
  Write(t.Sub("elsewhere/samples/00/canary.txt"), "not ckptbench's");
  Write(t.Sub("elsewhere/canary"), "keep me");
  fs::create_directory_symlink(t.Sub("elsewhere/samples"), t.Sub("ds/samples"));
  const auto before = Snapshot(t.Sub("elsewhere"));
  ASSERT_EQ(before.size(), 10u);  // 8 samples and 2 canaries

  ProcessResult gone = DatagenFilesDataset(t, {"--remove"});
  EXPECT_NE(gone.exit_code, 0);
  EXPECT_NE(gone.err.find(t.Sub("ds/samples")), std::string::npos) << gone.err;
  EXPECT_NE(gone.err.find("symbolic link"), std::string::npos) << gone.err;
  EXPECT_EQ(Snapshot(t.Sub("elsewhere")), before);
}

// A datagen into a dataset directory whose `samples/` links to a
// directory holding files of the same names writes none of them (it
// overwrote 7, exit 0).
TEST(HostileDataset, DatagenThroughASymlinkedSamplesDirectoryWritesNothing) {
  TempDir t;
  // The same names, other bytes, in a directory of someone else's; a new
  // dataset directory whose samples/ is a link to it.
  ASSERT_NO_FATAL_FAILURE(MadeWithSamplesElsewhere(t));
  for (const auto& [path, bytes] : Snapshot(t.Sub("elsewhere"))) {
    Write(path, "someone else's " + path);
  }
  fs::remove_all(t.Sub("ds"));
  fs::create_directories(t.Sub("ds"));
  fs::create_directory_symlink(t.Sub("elsewhere/samples"), t.Sub("ds/samples"));
  const auto before = Snapshot(t.Sub("elsewhere"));
  ASSERT_EQ(before.size(), 8u);

  ProcessResult again = DatagenFilesDataset(t);
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("symbolic link"), std::string::npos) << again.err;
  EXPECT_EQ(Snapshot(t.Sub("elsewhere")), before);
  EXPECT_FALSE(fs::exists(t.Sub("ds/ckptbench-dataset.json")));
}

// A hard link planted where datagen writes an object: the object is made
// anew, and the link's other name keeps its bytes (O_TRUNC rewrote them).
TEST(HostileDataset, AHardLinkPlantedUnderTheDatasetKeepsItsOtherNamesBytes) {
  TempDir t;
  ProcessResult made = DatagenFilesDataset(t);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto samples = Snapshot(t.Sub("ds/samples"));
  ASSERT_EQ(samples.size(), 8u);
  const std::string planted = samples.begin()->first;
  const std::string sample_bytes = samples.begin()->second;
  // A new dataset directory where one object's name is a hard link to a
  // file outside it.
  fs::remove_all(t.Sub("ds"));
  Write(t.Sub("victim"), "the victim's bytes");
  fs::create_directories(fs::path(planted).parent_path());
  ASSERT_EQ(link(t.Sub("victim").c_str(), planted.c_str()), 0);

  ProcessResult again = DatagenFilesDataset(t);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(ReadFile(t.Sub("victim")), "the victim's bytes");
  EXPECT_EQ(ReadFile(planted), sample_bytes);
  EXPECT_EQ(fs::hard_link_count(planted), 1u);
}

// A dataset.path that is itself a link the user chose is resolved as
// given: datagen and --remove work through it, and the link stays.
TEST(HostileDataset, ADatasetPathThatIsALinkIsTheUsersChoice) {
  TempDir t;
  fs::create_directories(t.Sub("real"));
  fs::create_directory_symlink(t.Sub("real"), t.Sub("ds"));
  ProcessResult made = DatagenFilesDataset(t);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(Snapshot(t.Sub("real/samples")).size(), 8u);
  ProcessResult gone = DatagenFilesDataset(t, {"--remove"});
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_TRUE(fs::is_symlink(t.Sub("ds")));
  EXPECT_TRUE(fs::is_directory(t.Sub("real")));
  EXPECT_TRUE(fs::is_empty(t.Sub("real")));
}

// Two datagens of different datasets on one path, the second started
// 0.3 s after the first (both exited 0, leaving a dataset whose next read
// failed on a checksum): the second is refused naming the first's claim,
// and the first's dataset reads back whole, every byte checked.
TEST(HostileDataset, TwoDatagensOnOnePathOneMakesItTheOtherIsRefused) {
  TempDir t;
  auto env = [&](const std::string& samples) {
    return std::map<std::string, std::string>{
        {"CKPT_DATASET_PATH", t.Sub("ds")}, {"CKPT_DATASET_FORMAT", "files"},
        {"CKPT_DATASET_SAMPLES", samples},  {"CKPT_SAMPLE_BYTES", "4KiB"},
        {"CKPT_SAMPLE_SPREAD", "0"},        {"CKPT_DATAGEN_THREADS", "1"}};
  };
  Process first({CkptbenchBinary(), "datagen", "-q"}, env("4000"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ProcessResult second = RunCkptbench({"datagen", "-q"}, env("3000"));
  ASSERT_EQ(first.Wait(120), 0) << first.Err();
  EXPECT_NE(second.exit_code, 0);
  const bool claimed =
      second.err.find("is claimed by run") != std::string::npos;
  const bool other =
      second.err.find("is another one than asked for") != std::string::npos;
  EXPECT_TRUE(claimed || other) << second.err;
  auto read = env("4000");
  read["CKPT_WORKLOAD"] = "dataload";
  read["CKPT_EPOCHS"] = "1";
  read["NUM_DEVICES"] = "1";
  ProcessResult epoch =
      RunCkptbench({"run", "--results-dir", t.Sub("res")}, read);
  ASSERT_EQ(epoch.exit_code, 0) << epoch.err;
  EXPECT_NE(epoch.out.find("each once"), std::string::npos) << epoch.out;
}

}  // namespace
}  // namespace ckpt
