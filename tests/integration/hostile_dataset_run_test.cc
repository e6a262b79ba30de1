// Hostile datasets as `ckptbench run` and `ckptbench datagen` meet them
// (issue: hostile datasets): a manifest at the key's maximum, an 8 TiB
// sparse shard, empty datasets, a dataset over the checkpoints or the
// results, a listing that never ends and a signal during it, a datagen and
// a removal killed mid-way. Each ends within seconds with the exit code a
// user can act on (2: input to fix, before anything ran; 1: a run that
// started and failed), result.json written.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/memory.h"
#include "nlohmann/json.hpp"
#include "tests/testing/stub_http_server.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::map<std::string, std::string> Listed(const std::string& dir,
                                          const std::string& format) {
  return {{"CKPT_DATASET_PATH", dir},      {"CKPT_DATASET_SOURCE", "listed"},
          {"CKPT_DATASET_FORMAT", format}, {"CKPT_WORKLOAD", "dataload"},
          {"CKPT_NUM_DEVICES", "1"},       {"CKPT_EPOCHS", "1"},
          {"CKPT_BATCH_SIZE", "2"},        {"CKPT_NUM_WORKERS", "1"},
          {"CKPT_CACHE_MODE", "fadvise"}};
}

// A valid ustar archive of `members` small members, as GNU tar writes it.
void WriteTar(const TempDir& t, const std::string& path, int members) {
  fs::create_directories(t.Sub("src"));
  std::vector<std::string> args = {"/usr/bin/tar", "-cf", path, "-C",
                                   t.Sub("src")};
  for (int i = 0; i < members; ++i) {
    const std::string name = absl::StrCat("s", i, ".jpg");
    std::ofstream(t.Sub("src/" + name)) << std::string(700 + i, 'x');
    args.push_back(name);
  }
  ProcessResult tar = RunProcess(args, {});
  ASSERT_EQ(tar.exit_code, 0) << tar.err;
}

// A manifest at the key's maximum (2^30 samples, one file each): the
// plan would hold over 100 GiB of object names. Refused before any round
// (exit 2) with the figures and the key, not an allocation that aborts.
TEST(HostileDatasetCli, AManifestAtTheMaximumIsRefusedBeforeAnyRound) {
  // 107 GiB of names: refused wherever 80% of the memory is less.
  if (AvailableMemory().available_bytes / 5 * 4 > (107ull << 30)) {
    GTEST_SKIP() << "this machine could hold the plan";
  }
  TempDir t;
  ProcessResult made =
      RunCkptbench({"datagen", "-q"}, {{"CKPT_DATASET_PATH", t.Sub("ds")},
                                       {"CKPT_DATASET_FORMAT", "files"},
                                       {"CKPT_DATASET_SAMPLES", "8"},
                                       {"CKPT_SAMPLE_BYTES", "4KiB"},
                                       {"CKPT_SAMPLE_SPREAD", "0"}});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  json m = json::parse(ReadFile(t.Sub("ds/ckptbench-dataset.json")));
  m["samples"] = 1ull << 30;
  std::ofstream(t.Sub("ds/ckptbench-dataset.json")) << m.dump();
  const auto t0 = Clock::now();
  ProcessResult r = RunCkptbench({"run", "--results-dir", t.Sub("res")},
                                 {{"CKPT_DATASET_PATH", t.Sub("ds")},
                                  {"CKPT_WORKLOAD", "dataload"},
                                  {"CKPT_NUM_DEVICES", "2"}});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_LT(Since(t0), 20.0);
  EXPECT_NE(r.err.find("the manifest's samples 1073741824"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("GiB on each node"), std::string::npos) << r.err;
  json res = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(res["status"], "failed");
}

// An 11 KiB shard made 8 TiB long (sparse): its index stops at the
// archive's end blocks (it read 70 GB in 25 s, untimed, for 52 minutes),
// the rest is noted, never read.
TEST(HostileDatasetCli, ASparseShardIsIndexedToItsEndBlocksOnly) {
  TempDir t;
  fs::create_directories(t.Sub("ds"));
  WriteTar(t, t.Sub("ds/a.tar"), 8);
  ASSERT_EQ(truncate(t.Sub("ds/a.tar").c_str(), 8ll << 40), 0);
  const auto t0 = Clock::now();
  ProcessResult r = RunCkptbench({"run", "--results-dir", t.Sub("res")},
                                 Listed(t.Sub("ds"), "tar"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(Since(t0), 30.0);
  EXPECT_NE(r.out.find("1 shard(s) longer than their archive"),
            std::string::npos)
      << r.out;
  json res = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(res["dataset"]["listing"]["overlong_objects"], 1);
  EXPECT_EQ(res["dataset"]["listing"]["overlong_first"], "a.tar");
  EXPECT_EQ(res["rounds"][0]["epoch"]["samples"], 8);
  EXPECT_LT(res["dataset"]["listing"]["index_bytes"].get<uint64_t>(),
            64u << 20);
}

// Datasets that hold no sample: a 0-byte shard (refused by name, as
// Python's tarfile refuses it), only end blocks, only directories. Each
// fails at the epoch's prepare (exit 1), never "ok" with 0 samples read.
TEST(HostileDatasetCli, EmptyListedDatasetsAreRefusedNamingWhy) {
  TempDir t;
  fs::create_directories(t.Sub("zero"));
  std::ofstream(t.Sub("zero/a.tar")).close();
  fs::create_directories(t.Sub("ends"));
  std::ofstream(t.Sub("ends/a.tar")) << std::string(10240, '\0');
  fs::create_directories(t.Sub("dirs/a/b"));
  struct Case {
    std::string dir, format, says;
  };
  for (const Case& c : {Case{"zero", "tar", "a.tar is 0 bytes"},
                        Case{"ends", "tar", "hold no regular member"},
                        Case{"dirs", "files", "no files under it"}}) {
    ProcessResult r =
        RunCkptbench({"run", "--results-dir", t.Sub(c.dir + "-res")},
                     Listed(t.Sub(c.dir), c.format));
    EXPECT_EQ(r.exit_code, 1) << c.dir << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.dir << ": " << r.err;
    EXPECT_EQ(r.out.find("ckptbench ok"), std::string::npos) << r.out;
    EXPECT_TRUE(fs::exists(t.Sub(c.dir + "-res/result.json"))) << c.dir;
  }
}

// A dataset over the checkpoints (dataset.path = storage.path, with
// checkpoints during the epoch) or holding the results: refused before
// anything runs, naming both paths (a second epoch read the checkpoint's
// files as samples). A dataset under storage.path/datasets/ is fine.
TEST(HostileDatasetCli, ADatasetOverTheCheckpointsOrTheResultsIsRefused) {
  TempDir t;
  fs::create_directories(t.Sub("store"));
  WriteTar(t, t.Sub("store/a.tar"), 64);
  auto env = Listed(t.Sub("store"), "tar");
  env["CKPT_DIR_PATH"] = t.Sub("store");
  env["CKPT_CHECKPOINT_EVERY"] = "4";
  env["NUM_LAYERS"] = "1";
  ProcessResult r = RunCkptbench({"run", "--results-dir", t.Sub("res1")}, env);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(t.Sub("store") + "/checkpoints"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("dataset.path"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(t.Sub("store/checkpoints")));

  ProcessResult results =
      RunCkptbench({"run", "--results-dir", t.Sub("store/res")},
                   Listed(t.Sub("store"), "tar"));
  EXPECT_EQ(results.exit_code, 2) << results.err;
  EXPECT_NE(results.err.find(t.Sub("store/res")), std::string::npos)
      << results.err;

  fs::create_directories(t.Sub("store2/datasets/d"));
  WriteTar(t, t.Sub("store2/datasets/d/a.tar"), 64);
  env = Listed(t.Sub("store2/datasets/d"), "tar");
  env["CKPT_DIR_PATH"] = t.Sub("store2");
  env["CKPT_CHECKPOINT_EVERY"] = "4";
  env["NUM_LAYERS"] = "1";
  ProcessResult ok = RunCkptbench({"run", "--results-dir", t.Sub("res2")}, env);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// A fake S3 that never stops paging (a new token every page, each page
// 200 ms late): SIGTERM during the listing ends the run at the next page,
// not 5 s later by the watchdog, with result.json written.
TEST(HostileDatasetCli, ASignalDuringAnEndlessListingStopsItAtTheNextPage) {
  std::atomic<int> n{0};
  StubHttpServer s3([&](const StubRequest&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const int k = n++;
    return StubResponse{
        200, absl::StrCat("<ListBucketResult><IsTruncated>true</IsTruncated>"
                          "<Contents><Key>ds/",
                          k,
                          ".tar</Key><Size>1024</Size><ETag>e</ETag>"
                          "</Contents><NextContinuationToken>t",
                          k, "</NextContinuationToken></ListBucketResult>")};
  });
  TempDir t;
  auto env = Listed("s3://b/ds", "tar");
  env["AWS_ENDPOINT_URL_S3"] = s3.url();
  env["CKPT_S3_ADDRESSING"] = "path";
  env["AWS_ACCESS_KEY_ID"] = "AKIDTEST";
  env["AWS_SECRET_ACCESS_KEY"] = "secret";
  env["AWS_EC2_METADATA_DISABLED"] = "true";
  Process p({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")}, env);
  const auto started = Clock::now();
  while (n.load() < 5 && Since(started) < 30) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(n.load(), 5) << p.Err();
  const auto t0 = Clock::now();
  p.Signal(SIGTERM);
  const int code = p.Wait(10);
  EXPECT_EQ(code, 3) << p.Err();
  EXPECT_LT(Since(t0), 2.0) << p.Err();
  EXPECT_NE(p.Err().find("listing s3://b/ds/: stopped after"),
            std::string::npos)
      << p.Err();
  EXPECT_EQ(p.Err().find("had not stopped"), std::string::npos) << p.Err();
  json res = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(res["status"], "failed");
}

// A datagen SIGKILLed mid-way leaves objects and no manifest; a removal
// SIGKILLed mid-way leaves objects and no manifest either. Each time the
// next `datagen --remove` finishes the job: nothing ckptbench wrote stays.
TEST(HostileDatasetCli, AKilledDatagenAndAKilledRemovalAreFinishedByRemove) {
  TempDir t;
  const std::map<std::string, std::string> env = {
      {"CKPT_DATASET_PATH", t.Sub("ds")},     {"CKPT_DATASET_FORMAT", "files"},
      {"CKPT_DATASET_SPREAD_PREFIXES", "16"}, {"CKPT_DATASET_SAMPLES", "20000"},
      {"CKPT_SAMPLE_BYTES", "2KiB"},          {"CKPT_SAMPLE_SPREAD", "0"},
      {"CKPT_DATAGEN_THREADS", "1"}};
  {
    Process p({CkptbenchBinary(), "datagen", "-q"}, env);
    const auto t0 = Clock::now();
    while (CountFiles(t.Sub("ds/samples")) < 500 && Since(t0) < 30) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    p.Signal(SIGKILL);
    p.Wait(10);
  }
  const size_t written = CountFiles(t.Sub("ds/samples"));
  ASSERT_GE(written, 500u);
  ASSERT_LT(written, 20000u) << "the datagen finished before it was killed";
  ASSERT_FALSE(fs::exists(t.Sub("ds/ckptbench-dataset.json")));
  auto remove = env;
  remove["CKPT_DATASET_REMOVE"] = "true";
  ProcessResult gone = RunCkptbench({"datagen", "-q"}, remove);
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_NE(gone.out.find("of a datagen that did not finish"),
            std::string::npos)
      << gone.out;
  EXPECT_EQ(CountFiles(t.Sub("ds")), 0u);
  EXPECT_FALSE(fs::exists(t.Sub("ds/samples")));
  EXPECT_FALSE(fs::exists(t.Sub("ds/.ckptbench-datagen")));

  auto quick = env;
  quick["CKPT_FSYNC"] = "false";  // made whole, quickly, to be removed
  ProcessResult made = RunCkptbench({"datagen", "-q"}, quick);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  {
    Process p({CkptbenchBinary(), "datagen", "--remove", "-q"}, env);
    const auto t0 = Clock::now();
    while (CountFiles(t.Sub("ds/samples")) > 19000 && Since(t0) < 30) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    p.Signal(SIGKILL);
    p.Wait(10);
  }
  const size_t left = CountFiles(t.Sub("ds/samples"));
  ASSERT_GT(left, 0u) << "the removal finished before it was killed";
  ASSERT_FALSE(fs::exists(t.Sub("ds/ckptbench-dataset.json")));
  gone = RunCkptbench({"datagen", "-q"}, remove);
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_EQ(CountFiles(t.Sub("ds")), 0u);
}

}  // namespace
}  // namespace ckpt
