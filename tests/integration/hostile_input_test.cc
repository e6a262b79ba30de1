// Hostile input through the ckptbench binary on local disk: names in a
// .metadata that lead outside the step, special files where shards and
// .metadata should be, step directories written by someone else, and the
// smaller cases of the same kind. Each case is one that once went wrong
// (docs/reliability.md).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/testing/result_files.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::map<std::string, std::string> Env(const std::string& dir, int ranks,
                                       const std::string& mode) {
  return {{"CKPT_DIR_PATH", dir},
          {"CKPT_CACHE_MODE", "fadvise"},
          {"NUM_DEVICES", std::to_string(ranks)},
          {"NUM_LAYERS", "1"},
          {"CKPT_OPTIMIZER", "none"},
          {"CKPT_MODE", mode},
          {"NUM_SAVE_CALLS", mode == "load-only" ? "0" : "1"},
          {"NUM_LOAD_CALLS", mode == "save-only" ? "0" : "1"}};
}

void Replace(const std::string& path, const std::string& from,
             const std::string& to) {
  std::string text = ReadFile(path);
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  std::ofstream(path, std::ios::trunc) << text;
}

// A resharded load maps the saved files by their names in .metadata; a
// name that climbs out of the step (with a planted copy of the real bytes
// there, so a read would even verify) is refused before any round, naming
// the entry, and nothing about the file outside is told.
TEST(HostileMetadata, AFileNameLeadingOutsideTheStepIsRefused) {
  TempDir t;
  auto save = RunProcess({CkptbenchBinary(), "run"},
                         Env(t.Sub("ckpt"), 4, "save-only"));
  ASSERT_EQ(save.exit_code, 0) << save.err;
  const std::string step = t.Sub("ckpt/checkpoints/step-1");
  fs::create_directories(t.Sub("victim"));
  fs::copy_file(step + "/__0_0.distcp", t.Sub("victim/secret.distcp"));
  const std::string hostile = "../../../victim/secret.distcp";
  Replace(step + "/.metadata", "\"name\":\"__0_0.distcp\"",
          "\"name\":\"" + hostile + "\"");
  auto load =
      RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
                 Env(t.Sub("ckpt"), 2, "load-only"));
  EXPECT_EQ(load.exit_code, 2) << load.err;
  EXPECT_NE(load.err.find("file name in " + step + "/.metadata '" + hostile +
                          "': a '..' component"),
            std::string::npos)
      << load.err;
  const uint64_t size = fs::file_size(t.Sub("victim/secret.distcp"));
  EXPECT_EQ(load.err.find(std::to_string(size)), std::string::npos) << load.err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["status"], "failed");
  for (const auto& round : j["rounds"]) {
    EXPECT_NE(round["phase"], "load") << round.dump();
  }
}

// A saved checkpoint of one rank under `dir`; returns its step directory.
std::string SaveOne(const TempDir& t) {
  auto save = RunProcess({CkptbenchBinary(), "run"},
                         Env(t.Sub("ckpt"), 1, "save-only"));
  EXPECT_EQ(save.exit_code, 0) << save.err;
  return t.Sub("ckpt/checkpoints/step-1");
}

// Runs a load-only run in the background, bounded: a process that hangs
// is killed after `limit` seconds and the test fails, instead of hanging.
ProcessResult LoadBounded(const TempDir& t, double limit) {
  Process p({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
            Env(t.Sub("ckpt"), 1, "load-only"));
  ProcessResult r;
  r.exit_code = p.Wait(limit);
  r.out = p.Out();
  r.err = p.Err();
  return r;
}

// Issue 27, item 3: a FIFO where a shard or the .metadata should be hung
// in open(2) forever; it is refused at once, by kind, and the result is
// written.
TEST(HostileFiles, AFifoShardOrMetadataIsRefusedWithoutHanging) {
  for (const std::string name : {"__0_0.distcp", ".metadata"}) {
    SCOPED_TRACE(name);
    TempDir t;
    const std::string step = SaveOne(t);
    fs::remove(step + "/" + name);
    ASSERT_EQ(mkfifo((step + "/" + name).c_str(), 0644), 0);
    const auto t0 = std::chrono::steady_clock::now();
    ProcessResult load = LoadBounded(t, 30);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    ASSERT_NE(load.exit_code, -1) << "still running after 30 s: " << load.err;
    EXPECT_LT(took, 15);
    EXPECT_NE(load.exit_code, 0);
    EXPECT_NE(load.err.find(step + "/" + name + " is a FIFO: refused"),
              std::string::npos)
        << load.err;
    json j = json::parse(ReadFile(t.Sub("res/result.json")));
    EXPECT_EQ(j["status"], "failed");
  }
}

// Symbolic links are followed only beneath the step directory: a shard
// that is a link out of it is refused without reading it, and the refusal
// says the same whether the target exists or not (nothing revealed).
TEST(HostileFiles, AShardLinkedOutsideTheStepIsNotRead) {
  std::string messages[2];
  for (int exists = 0; exists < 2; ++exists) {
    TempDir t;
    const std::string step = SaveOne(t);
    fs::create_directories(t.Sub("victim"));
    if (exists) {
      fs::copy_file(step + "/__0_0.distcp", t.Sub("victim/secret.distcp"));
    }
    fs::remove(step + "/__0_0.distcp");
    fs::create_symlink("../../../victim/secret.distcp", step + "/__0_0.distcp");
    ProcessResult load = LoadBounded(t, 60);
    EXPECT_NE(load.exit_code, 0);
    EXPECT_NE(load.exit_code, -1);
    const std::string want = step + "/__0_0.distcp leads outside " +
                             t.Sub("ckpt/checkpoints") +
                             " (a symbolic link or '..' that leaves it): "
                             "refused";
    EXPECT_NE(load.err.find(want), std::string::npos) << load.err;
    json j = json::parse(ReadFile(t.Sub("res/result.json")));
    EXPECT_EQ(j["status"], "failed");
    for (const auto& round : j["rounds"]) {
      EXPECT_NE(round["status"], "ok") << round.dump();
    }
    messages[exists] = j["errors"].dump();
    // The temporary directory's name differs between the two runs.
    const std::string base = t.path();
    for (size_t at; (at = messages[exists].find(base)) != std::string::npos;) {
      messages[exists].replace(at, base.size(), "T");
    }
  }
  EXPECT_EQ(messages[0], messages[1]);
}

// A shard replaced by an 8 TiB sparse file: refused by its size before
// the page-cache check walked it (that took over a minute).
TEST(HostileFiles, AHugeSparseShardIsRefusedByItsSizeAtOnce) {
  TempDir t;
  const std::string step = SaveOne(t);
  const std::string shard = step + "/__0_0.distcp";
  const uint64_t saved = fs::file_size(shard);
  std::error_code ec;
  fs::resize_file(shard, uint64_t{8} << 40, ec);
  if (ec) GTEST_SKIP() << "no 8 TiB sparse file here: " << ec.message();
  const auto t0 = std::chrono::steady_clock::now();
  ProcessResult load = LoadBounded(t, 60);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  ASSERT_NE(load.exit_code, -1) << "still running after 60 s";
  EXPECT_LT(took, 15);
  EXPECT_EQ(load.exit_code, 1);
  EXPECT_NE(load.err.find(shard +
                          " is 8796093022208 bytes; the "
                          "checkpoint's .metadata says " +
                          std::to_string(saved)),
            std::string::npos)
      << load.err;
}

// A save whose file thread the test hook blocks in read(2) (a system call
// no signal ends here, as in a FUSE mount whose daemon stopped answering).
Process HungSave(const TempDir& t) {
  auto env = Env(t.Sub("ckpt"), 1, "save-only");
  env["NUM_SAVE_CALLS"] = "2";
  env["CKPTBENCH_TEST_HANG_IN_SAVE"] = "1";
  return Process({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
                 env);
}

// Issue 27, item 3: signals end a run within a few seconds whatever it is
// blocked in. A save's file thread stuck in read(2) (a system call no
// signal ends here, as in a FUSE mount whose daemon stopped answering)
// once kept the process until SIGKILL, with no result.json.
TEST(Signals, ARunStuckInASystemCallEndsSecondsAfterSigterm) {
  TempDir t;
  Process p = HungSave(t);
  // Signalled once a file thread is in read(2): a signal before it (a
  // loaded machine's slow prepare) let the run stop by itself at once,
  // 1.85 s into this test in one run here.
  ASSERT_TRUE(p.WaitForOutput("blocks in read(2) now", 30)) << p.Err();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto t0 = std::chrono::steady_clock::now();
  p.Signal(SIGTERM);
  const int code = p.Wait(20);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  ASSERT_NE(code, -1) << "still running 20 s after SIGTERM: " << p.Err();
  EXPECT_EQ(code, 3) << p.Err();
  EXPECT_LT(took, 10);
  EXPECT_GE(took, 4);  // the run had its grace period to stop by itself
  EXPECT_NE(p.Err().find("interrupted by SIGTERM; the run had not stopped"),
            std::string::npos)
      << p.Err();
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["errors"].dump().find("had not stopped"), std::string::npos)
      << j["errors"];
}

// A second signal before the run stopped ends it at once, and says so (it
// said "the run had not stopped 0.0 s later").
TEST(Signals, ASecondSignalSaysSo) {
  TempDir t;
  Process p = HungSave(t);
  // Signalled once a file thread is in read(2): a signal before it (a
  // loaded machine's slow prepare) let the run stop by itself at once,
  // 1.85 s into this test in one run here.
  ASSERT_TRUE(p.WaitForOutput("blocks in read(2) now", 30)) << p.Err();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  p.Signal(SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const auto t0 = std::chrono::steady_clock::now();
  p.Signal(SIGINT);
  const int code = p.Wait(20);
  ASSERT_NE(code, -1) << "still running 20 s after SIGINT: " << p.Err();
  EXPECT_EQ(code, 3) << p.Err();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                .count(),
            3);
  EXPECT_NE(p.Err().find("a second signal, SIGINT, came 0."), std::string::npos)
      << p.Err();
  EXPECT_EQ(p.Err().find("had not stopped"), std::string::npos) << p.Err();
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_NE(j["errors"].dump().find("a second signal"), std::string::npos)
      << j["errors"];
}

// A closed terminal (SIGHUP) is an interrupt like SIGTERM: the round is
// aborted and result.json written (the default action ended the process
// with no result and a partial step).
TEST(Signals, SighupAbortsTheRunAndKeepsItsResult) {
  TempDir t;
  auto env = Env("null://mibps-8", 1, "save-only");
  Process p({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")}, env);
  ASSERT_TRUE(p.WaitForOutput("per checkpoint", 30)) << p.Err();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  p.Signal(SIGHUP);
  ASSERT_EQ(p.Wait(20), 3) << p.Err();
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["errors"].dump().find("interrupted by SIGHUP"), std::string::npos)
      << j["errors"];
}

// Issue 27, item 8: a step directory numbered past 2^53 - 1 (here 2^64 -
// 1, which made the next step wrap to 0) was not written by ckptbench: it
// is ignored with a note, and saves take steps 1 and 2.
TEST(Steps, AStepNumberPastTheBoundIsIgnoredAndNeverWraps) {
  TempDir t;
  const std::string huge = t.Sub("ckpt/checkpoints/step-18446744073709551615");
  fs::create_directories(huge);
  auto env = Env(t.Sub("ckpt"), 1, "save+load");
  env["NUM_SAVE_CALLS"] = "2";
  auto run = RunProcess(
      {CkptbenchBinary(), "run", "--results-dir", t.Sub("res")}, env);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  std::vector<uint64_t> steps;
  for (const auto& round : j["rounds"]) {
    if (round["phase"] == "save") steps.push_back(round["step"]);
    EXPECT_EQ(
        std::find(round["flags"].begin(), round["flags"].end(), "not_visible"),
        round["flags"].end())
        << round.dump();
  }
  EXPECT_EQ(steps, (std::vector<uint64_t>{1, 2}));
  EXPECT_NE(j["notes"].dump().find("ignored " + huge +
                                   ": a step number past 9007199254740991"),
            std::string::npos)
      << j["notes"];
  EXPECT_TRUE(fs::exists(huge));  // not ours: left alone
  EXPECT_FALSE(fs::exists(t.Sub("ckpt/checkpoints/step-0")));
}

// Reaching the bound is an error naming the directory, not a wrap.
TEST(Steps, TheLastStepNumberLeavesNoRoomAndSaysWhere) {
  TempDir t;
  const std::string last = t.Sub("ckpt/checkpoints/step-9007199254740991");
  fs::create_directories(last);
  auto run =
      RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
                 Env(t.Sub("ckpt"), 1, "save-only"));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(
      run.err.find("no step number is left under " + t.Sub("ckpt/checkpoints")),
      std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find(last), std::string::npos) << run.err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["status"], "failed");
}

// Partial steps a killed run left (no .metadata) are named by the next
// run, and left alone.
TEST(Steps, AStepWithoutMetadataIsNamedAndLeftAlone) {
  TempDir t;
  SaveOne(t);
  const std::string partial = t.Sub("ckpt/checkpoints/step-7");
  fs::create_directories(partial);
  std::ofstream(partial + "/__0_0.distcp") << "half";
  auto run =
      RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
                 Env(t.Sub("ckpt"), 1, "load-only"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_NE(j["notes"].dump().find(partial +
                                   " holds no .metadata: a save in progress, "
                                   "or one a run killed mid-save left behind"),
            std::string::npos)
      << j["notes"];
  EXPECT_TRUE(fs::exists(partial + "/__0_0.distcp"));
}

// A path too long to use fails before any round and leaves none of the
// directories its probe made (it once left 22 empty ones behind).
TEST(Paths, ATooLongPathLeavesNoDirectoriesBehind) {
  TempDir t;
  std::string dir = t.Sub("p");
  while (dir.size() < 4060) dir += "/" + std::string(180, 'd');
  auto run =
      RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
                 Env(dir, 1, "save-only"));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("File name too long"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(t.Sub("p"))) << "directories left under " << t.path();
  EXPECT_TRUE(fs::exists(t.Sub("res/result.json")));
}

}  // namespace
}  // namespace ckpt
