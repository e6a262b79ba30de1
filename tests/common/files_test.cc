#include "common/files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace ckpt {
namespace {

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ckpt_files_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(FilesTest, ARegularFileIsReadWhole) {
  const std::string path = dir_ + "/token";
  std::ofstream(path) << "abc\ndef";
  auto text = ReadRegularFile(path, 1024, "token file");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "abc\ndef");
}

TEST_F(FilesTest, AFifoIsRefusedWithoutBlocking) {
  const std::string path = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  auto text = ReadRegularFile(path, 1024, "AWS shared credentials file");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(), "AWS shared credentials file " + path +
                                         " is a FIFO: expected a regular file");
  auto fd = OpenRegularFile(path, "shard");
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.status().message().find("is a FIFO"), std::string::npos);
}

TEST_F(FilesTest, DevicesAndDirectoriesAreRefusedByKind) {
  auto zero = ReadRegularFile("/dev/zero", 1 << 20, "token file");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(),
            "token file /dev/zero is a character device: expected a regular "
            "file");
  auto dir = ReadRegularFile(dir_, 1 << 20, "config file");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("is a directory"), std::string::npos);
}

TEST_F(FilesTest, AFileOverTheBoundIsRefusedNamingTheBound) {
  const std::string path = dir_ + "/big";
  std::ofstream(path) << std::string(5000, 'x');
  auto text = ReadRegularFile(path, 4096, "token file");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(),
            "token file " + path +
                " is 4.88 KiB, more than the 4.00 KiB allowed for it: "
                "expected a smaller file");
  EXPECT_TRUE(ReadRegularFile(path, 5000, "token file").ok());
}

TEST_F(FilesTest, AProcFileThatReportsNoSizeIsStillBounded) {
  // /proc files say size 0 but have bytes: the read itself is bounded.
  auto text = ReadRegularFile("/proc/self/maps", 16, "maps");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("more than the 16 B"),
            std::string::npos)
      << text.status();
}

TEST_F(FilesTest, AMissingFileIsNotFoundAndAnUnwritableDirKeepsTheCause) {
  auto text = ReadRegularFile(dir_ + "/nope", 10, "token file");
  EXPECT_TRUE(absl::IsNotFound(text.status())) << text.status();
  EXPECT_NE(text.status().message().find("No such file or directory"),
            std::string::npos);
  auto w = WriteFileAtomically(dir_ + "/missing/result.json", "{}");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.message().find("No such file or directory"), std::string::npos)
      << w;
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/result.json", "{}").ok());
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/result.json.tmp"));
}

// Issue 27: a results directory others can write may hold a planted
// result.json.tmp -> victim; it was written through (O_TRUNC on a fixed
// name). The temporary is now this write's own.
TEST_F(FilesTest, APlantedTemporaryLinkIsNotWrittenThrough) {
  const std::string victim = dir_ + "/victim";
  std::ofstream(victim) << "precious";
  std::filesystem::create_symlink(victim, dir_ + "/result.json.tmp");
  std::filesystem::create_symlink(victim, dir_ + "/report.html.tmp");
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/result.json", "{}").ok());
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/report.html", "<html>").ok());
  auto kept = ReadRegularFile(victim, 100, "victim");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, "precious");
  EXPECT_EQ(*ReadRegularFile(dir_ + "/result.json", 100, "result"), "{}");
}

}  // namespace
}  // namespace ckpt
