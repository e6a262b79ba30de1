// The fuse flavour of the posix backend on a real FUSE mount: Debian's
// s3fs mounts a bucket of the test's Swift (s3api), and `ckptbench run`
// with CKPT_DIR_PATH on the mount (the env-var single-node mode) saves and
// loads through it, verified; the objects land in the bucket. Skipped,
// with the reason, where /dev/fuse is missing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/testing/cluster.h"
#include "tests/testing/swift_server.h"

namespace ckpt {
namespace {

using nlohmann::json;

bool Mounted(const std::string& dir, std::string* type) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(" " + dir + " ") == std::string::npos) continue;
    size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    *type = line.substr(dash + 3, line.find(' ', dash + 3) - dash - 3);
    return true;
  }
  return false;
}

// An s3fs mount of a Swift bucket, unmounted (and s3fs ended) on exit,
// also when the test fails.
class S3fsMount {
 public:
  S3fsMount(const SwiftServer& swift, const std::string& bucket,
            const std::string& dir) {
    dir_ = dir;
    mkdir(dir.c_str(), 0755);
    auto env = swift.Env();
    env["AWSACCESSKEYID"] = env["AWS_ACCESS_KEY_ID"];
    env["AWSSECRETACCESSKEY"] = env["AWS_SECRET_ACCESS_KEY"];
    // -f: in the foreground, so this test owns the process by its PID.
    process_ = std::make_unique<Process>(
        std::vector<std::string>{
            "/usr/bin/s3fs", bucket, dir, "-f", "-o",
            "url=" + swift.endpoint() +
                ",use_path_request_style,dbglevel=warn,endpoint=us-east-1"},
        env);
    for (int i = 0; i < 100 && !Mounted(dir, &type_); ++i) {
      if (process_->Wait(0.1) >= 0) break;  // s3fs gave up
    }
  }
  ~S3fsMount() {
    RunProcess({"/bin/fusermount", "-u", "-z", dir_}, {});
    if (process_ && process_->Wait(10) < 0) process_->Signal(SIGTERM);
  }
  const std::string& type() const { return type_; }
  std::string log() const { return process_->Out() + process_->Err(); }

 private:
  std::string dir_, type_;
  std::unique_ptr<Process> process_;
};

TEST(Fuse, SaveAndLoadThroughAnS3fsMountOfSwift) {
  struct stat st;
  if (stat("/dev/fuse", &st) != 0) {
    GTEST_SKIP() << "skipped: /dev/fuse is missing on this machine, so no "
                    "FUSE mount can be made (s3fs needs it)";
  }
  SwiftServer& swift = SwiftServer::Get();
  ASSERT_FALSE(swift.endpoint().empty()) << swift.error();
  const std::string bucket = SwiftServer::UniqueBucket("fuse");
  ASSERT_EQ(swift.MakeBucket(bucket), "");
  TempDir t;
  S3fsMount mount(swift, bucket, t.Sub("mnt"));
  ASSERT_EQ(mount.type(), "fuse.s3fs") << mount.log();

  auto r = RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
                      {{"CKPT_DIR_PATH", t.Sub("mnt") + "/bench"},
                       {"NUM_DEVICES", "2"},
                       {"NUM_LAYERS", "1"},
                       {"NUM_SAVE_CALLS", "1"},
                       {"NUM_LOAD_CALLS", "1"},
                       {"HOME", t.path()}});
  ASSERT_EQ(r.exit_code, 0) << r.err << mount.log();
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["environment"]["filesystem"], "fuse.s3fs");
  EXPECT_EQ(j["environment"]["storage"], "fuse");
  const std::string opts = j["environment"]["mount_options"];
  EXPECT_EQ(opts.rfind("flavour=fuse,", 0), 0u) << opts;
  ASSERT_EQ(j["rounds"].size(), 2u);
  EXPECT_GT(j["rounds"][0]["bytes"].get<uint64_t>(), 0u);
  EXPECT_TRUE(j["rounds"][1]["verified"].get<bool>());
  const std::string rounds = j["rounds"].dump();
  EXPECT_NE(rounds.find("\"close\""), std::string::npos);  // timed close
  EXPECT_NE(rounds.find("FUSE daemon's own caches"), std::string::npos);
  // The kernel's page cache is evicted as on local disk (root here: drop).
  const std::string method = j["rounds"][1]["page_cache"]["method"];
  EXPECT_TRUE(method == "drop_caches" || method == "fadvise_dontneed")
      << method;
  EXPECT_EQ(j["rounds"][1]["page_cache"]["resident_bytes_at_start"], 0);

  // The shards are objects in the bucket, as S3 sees them.
  auto ls = swift.Aws({"s3", "ls", "--recursive", "s3://" + bucket + "/"});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("bench/checkpoints/"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find(".distcp"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find(".metadata"), std::string::npos) << ls.out;
  EXPECT_EQ(ls.out.find(".tmp"), std::string::npos) << ls.out;  // no renames
}

// A dataset of one file per sample made through the mount, then read by
// two ranks' data loaders: epoch 1 cold (the kernel's page cache evicted
// as for loads) with each sample read once and verified, epoch 2 warm on
// request; the samples are objects in the bucket.
TEST(Fuse, ADatasetOnAnS3fsMountIsMadeAndReadColdThenWarm) {
  struct stat st;
  if (stat("/dev/fuse", &st) != 0) {
    GTEST_SKIP() << "skipped: /dev/fuse is missing on this machine";
  }
  SwiftServer& swift = SwiftServer::Get();
  ASSERT_FALSE(swift.endpoint().empty()) << swift.error();
  const std::string bucket = SwiftServer::UniqueBucket("fuseds");
  ASSERT_EQ(swift.MakeBucket(bucket), "");
  TempDir t;
  S3fsMount mount(swift, bucket, t.Sub("mnt"));
  ASSERT_EQ(mount.type(), "fuse.s3fs") << mount.log();
  std::map<std::string, std::string> env = {
      {"CKPT_DATASET_PATH", t.Sub("mnt") + "/ds"},
      {"CKPT_DATASET_FORMAT", "files"},
      {"CKPT_DATASET_SAMPLES", "60"},
      {"CKPT_SAMPLE_BYTES", "16KiB"},
      {"CKPT_SAMPLE_SPREAD", "4KiB"},
      {"CKPT_DATASET_SPREAD_PREFIXES", "4"},
      {"NUM_DEVICES", "2"},
      {"HOME", t.path()}};
  auto made = RunProcess(
      {CkptbenchBinary(), "datagen", "-q", "--results-dir", t.Sub("made")},
      env);
  ASSERT_EQ(made.exit_code, 0) << made.err << mount.log();
  env["CKPT_WORKLOAD"] = "dataload";
  env["CKPT_EPOCHS"] = "2";
  env["CKPT_WARM_EPOCHS"] = "true";
  auto r = RunProcess(
      {CkptbenchBinary(), "run", "-q", "--results-dir", t.Sub("res")}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err << mount.log();
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["environment"]["filesystem"], "fuse.s3fs");
  ASSERT_EQ(j["rounds"].size(), 2u);
  for (const json& round : j["rounds"]) {
    EXPECT_EQ(round["epoch"]["samples"], 60);
    EXPECT_EQ(round["epoch"]["each_sample_once"], true);
    EXPECT_EQ(round["verified"], true);
  }
  const std::string method = j["rounds"][0]["page_cache"]["method"];
  EXPECT_TRUE(method == "drop_caches" || method == "fadvise_dontneed")
      << method;
  EXPECT_EQ(j["rounds"][0]["page_cache"]["resident_bytes_at_start"], 0);
  EXPECT_EQ(j["rounds"][1]["epoch"]["warm"], true);
  EXPECT_EQ(j["rounds"][1]["page_cache"]["method"], "none");
  auto ls = swift.Aws({"s3", "ls", "--recursive", "s3://" + bucket + "/"});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("ds/ckptbench-dataset.json"), std::string::npos)
      << ls.out;
  EXPECT_NE(ls.out.find("s0000000059.jpg"), std::string::npos) << ls.out;
}

// Time to visible across two node processes, each with its own s3fs mount
// of the bucket (as two hosts would have): node 1 runs in a mount namespace
// of its own where its mount is bound over node 0's path, so both use one
// CKPT_DIR_PATH through different FUSE daemons and their caches. After
// each save node 0 commits and node 1 polls until it lists the step, reads
// the .metadata back and opens a shard at its size.
TEST(Fuse, TimeToVisibleAcrossTwoNodesWithTheirOwnS3fsMounts) {
  struct stat st;
  if (stat("/dev/fuse", &st) != 0) {
    GTEST_SKIP() << "skipped: /dev/fuse is missing on this machine";
  }
  SwiftServer& swift = SwiftServer::Get();
  ASSERT_FALSE(swift.endpoint().empty()) << swift.error();
  const std::string bucket = SwiftServer::UniqueBucket("fusevis");
  ASSERT_EQ(swift.MakeBucket(bucket), "");
  Cluster c;
  TempDir& t = c.tmp();
  S3fsMount mount0(swift, bucket, t.Sub("mnt"));
  S3fsMount mount1(swift, bucket, t.Sub("mnt1"));
  ASSERT_EQ(mount0.type(), "fuse.s3fs") << mount0.log();
  ASSERT_EQ(mount1.type(), "fuse.s3fs") << mount1.log();
  auto coord = c.StartCoordinator({{"CKPT_DIR_PATH", t.Sub("mnt") + "/bench"},
                                   {"NUM_NODES", "2"},
                                   {"NUM_DEVICES", "1"},
                                   {"NUM_LAYERS", "1"},
                                   {"CKPT_OPTIMIZER", "none"},
                                   {"NUM_SAVE_CALLS", "2"},
                                   {"NUM_LOAD_CALLS", "1"},
                                   {"CKPT_KEEP_ALL_STEPS", "true"}});
  auto n0 = c.StartNode(0, {{"HOME", t.path()}});
  Process n1(
      {"/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
       "mount --bind \"$1\" \"$2\" && exec \"$3\" node --node-index 1", "sh",
       t.Sub("mnt1"), t.Sub("mnt"), CkptbenchBinary()},
      {{"CKPT_COORDINATOR", c.address()},
       {"CKPT_CONNECT_TIMEOUT", "30"},
       {"HOME", t.path()}});
  ASSERT_EQ(coord->Wait(120), 0) << coord->Err() << n1.Err();
  EXPECT_EQ(n0->Wait(10), 0) << n0->Err();
  EXPECT_EQ(n1.Wait(10), 0) << n1.Err();
  json j = json::parse(ReadFile(c.ResultPath()));
  EXPECT_EQ(j["environment"]["storage"], "fuse");
  int saves = 0;
  for (const auto& round : j["rounds"]) {
    if (round["phase"] != "save") continue;
    ++saves;
    const json& v = round["time_to_visible"];
    ASSERT_TRUE(v.is_object()) << round.dump();
    EXPECT_TRUE(v["visible"].get<bool>()) << v;
    EXPECT_EQ(v["node"], 1);
    EXPECT_FALSE(v["same_node"].get<bool>());
    EXPECT_GE(v["polls"].get<int>(), 1);
    EXPECT_LT(v["seconds"].get<double>(), 60.0) << v;
    std::cout << "s3fs time to visible: " << v.dump() << "\n";
  }
  EXPECT_EQ(saves, 2);
  EXPECT_TRUE(j["rounds"].back()["verified"].get<bool>());
}

// A generated model made through the mount (its files objects in the
// bucket), then loaded by a replica of 2 and of 4 ranks in stream mode,
// through mmap (page faults served by s3fs) and downloaded to a local
// directory first, whole files and tensor-parallel, every byte verified,
// each load cold (the kernel's page cache evicted).
TEST(Fuse, AModelOnAnS3fsMountIsStreamedMappedAndDownloaded) {
  struct stat st;
  if (stat("/dev/fuse", &st) != 0) {
    GTEST_SKIP() << "skipped: /dev/fuse is missing on this machine";
  }
  SwiftServer& swift = SwiftServer::Get();
  ASSERT_FALSE(swift.endpoint().empty()) << swift.error();
  const std::string bucket = SwiftServer::UniqueBucket("fusemodel");
  ASSERT_EQ(swift.MakeBucket(bucket), "");
  TempDir t;
  S3fsMount mount(swift, bucket, t.Sub("mnt"));
  ASSERT_EQ(mount.type(), "fuse.s3fs") << mount.log();
  ASSERT_EQ(mkdir(t.Sub("local").c_str(), 0700), 0);
  struct Load {
    std::string mode, split, ranks;
  };
  int run = 0;
  for (const Load& l : {Load{"stream", "files", "2"}, Load{"stream", "tp", "4"},
                        Load{"mmap", "files", "4"}, Load{"mmap", "tp", "2"},
                        Load{"download", "tp", "4"}}) {
    SCOPED_TRACE(l.mode + ", " + l.split + " x " + l.ranks);
    const std::string res = t.Sub("res" + std::to_string(++run));
    auto r = RunProcess({CkptbenchBinary(), "run", "-q", "--results-dir", res},
                        {{"CKPT_WORKLOAD", "serve"},
                         {"CKPT_SERVE_PATH", t.Sub("mnt") + "/models/tiny"},
                         {"CKPT_MODEL", "llama-3-tiny"},
                         {"CKPT_SERVE_FILE_BYTES", "1MiB"},
                         {"CKPT_SERVE_CHUNK_SIZE", "256KiB"},
                         {"CKPT_SERVE_READ_MODE", l.mode},
                         {"CKPT_SERVE_DOWNLOAD_PATH", t.Sub("local")},
                         {"CKPT_SERVE_SPLIT", l.split},
                         {"NUM_DEVICES", l.ranks},
                         {"HOME", t.path()}});
    ASSERT_EQ(r.exit_code, 0) << r.err << mount.log();
    json j = json::parse(ReadFile(res + "/result.json"));
    EXPECT_EQ(j["serving_model"]["reused"], run > 1);
    const json& round = j["rounds"][1];
    EXPECT_EQ(round["verified"], true);
    EXPECT_EQ(round["replica_load"]["read_mode"], l.mode);
    EXPECT_EQ(round["replica_load"]["ranks_loaded"].size(),
              std::stoul(l.ranks));
    EXPECT_EQ(round["replica_load"]["replicas"][0]["bytes"],
              round["replica_load"]["read_bytes"]);
    EXPECT_EQ(round["page_cache"]["resident_bytes_at_start"], 0);
  }
  EXPECT_EQ(CountFiles(t.Sub("local")), 0u);  // the download's copy gone
  auto ls = swift.Aws({"s3", "ls", "--recursive", "s3://" + bucket + "/"});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("models/tiny/model-00005-of-00005.safetensors"),
            std::string::npos)
      << ls.out;
  EXPECT_NE(ls.out.find("models/tiny/ckptbench-model.json"), std::string::npos)
      << ls.out;
}

}  // namespace
}  // namespace ckpt
