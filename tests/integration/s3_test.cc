// The S3 backend against OpenStack Swift with s3api (a real SigV4-checking
// S3 implementation), with the AWS CLI as the peer client nobody here wrote.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/s3_fixture.h"
#include "tests/testing/cluster.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/swift_server.h"
#include "tests/testing/tls_front.h"

namespace ckpt {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

TEST_F(S3Test, SaveLoadWithMultipartAndWithSinglePut) {
  // 24MiB: the first buffer holds three parts, sent as its slices.
  for (std::string threshold : {"8MiB", "24MiB", "1GiB"}) {
    SCOPED_TRACE(threshold);
    std::string prefix = "t" + threshold;
    auto r = Ckpt({"run", "--results-dir", tmp_.Sub(prefix)},
                  S3Env({{"CKPT_DIR_PATH", Uri(prefix)},
                         {"CKPT_S3_MULTIPART_THRESHOLD", threshold},
                         {"NUM_SAVE_CALLS", "1"},
                         {"NUM_LOAD_CALLS", "2"},
                         {"CKPT_BLOCK_SIZE", "1MiB"},
                         {"CKPT_S3_RANGE_SIZE", "2MiB"},
                         {"CKPT_S3_RANGES_IN_FLIGHT", "8"},
                         {"CKPT_S3_PARTS_IN_FLIGHT", "3"}}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(ReadFile(tmp_.Sub(prefix + "/result.json")));
    EXPECT_EQ(j["environment"]["storage"], "s3");
    ASSERT_EQ(j["rounds"].size(), 3u);
    EXPECT_TRUE(j["rounds"][2]["verified"].get<bool>());
    // Loads: one ranged GET per 2 MiB range, whatever the 1 MiB block size
    // of the reader, and no HEAD (each object's size is in the .metadata).
    uint64_t want = 0;
    for (const auto& r : j["rounds"][1]["ranks"]) {
      want += (r["bytes"].get<uint64_t>() + (2 << 20) - 1) / (2 << 20);
    }
    EXPECT_EQ(j["rounds"][1]["requests"].get<uint64_t>(), want);
    // Issue 15: the storage client and its connections live for the whole
    // run. The first load opened connections (the counter counts): its 16
    // ranges in flight need more than the save held. The save alone may
    // open none: with one PUT per file (1GiB) its two streams can find two
    // the preflight left kept alive, as a run against the S3 tests' shared
    // Swift once did. The second load, at the same concurrency as the
    // first, reused kept-alive ones and opened none.
    EXPECT_GT(j["rounds"][1]["new_connections"].get<uint64_t>(), 0u)
        << j["rounds"][1].dump();
    EXPECT_EQ(j["rounds"][2]["new_connections"].get<uint64_t>(), 0u)
        << j["rounds"][2].dump();
    auto head =
        swift().Aws({"s3api", "head-object", "--bucket", bucket_, "--key",
                     prefix + "/checkpoints/step-1/__0_0.distcp"});
    ASSERT_EQ(head.exit_code, 0) << head.err;
    // Multipart objects have an ETag ending in -<parts>.
    bool multipart = head.out.find("-11\\\"") != std::string::npos;
    EXPECT_EQ(multipart, threshold != "1GiB") << head.out;
  }
  auto uploads =
      swift().Aws({"s3api", "list-multipart-uploads", "--bucket", bucket_});
  EXPECT_EQ(uploads.exit_code, 0);
  EXPECT_EQ(uploads.out.find("UploadId"), std::string::npos) << uploads.out;
}

// Issue 27: listings, retention and clean-up work by whole path component:
// objects whose keys share the string of this run's root or steps (a
// sibling root r1, step-1x and step-1.bak beside step-1) are never listed
// as this run's or removed with its steps.
TEST_F(S3Test, SiblingPrefixesThatShareTheStringAreNeverTouched) {
  const std::vector<std::string> foreign = {
      "r1/checkpoints/step-1/.metadata", "r1/checkpoints/step-1/__0_0.distcp",
      "r1/checkpoints/step-3/.metadata", "r/checkpoints/step-1x/__0_0.distcp",
      "r/checkpoints/step-1.bak/.metadata"};
  const std::string body = tmp_.Sub("body");
  std::ofstream(body) << "not ckptbench's";
  for (const auto& key : foreign) {
    auto put = swift().Aws({"s3api", "put-object", "--bucket", bucket_, "--key",
                            key, "--body", body});
    ASSERT_EQ(put.exit_code, 0) << put.err;
  }
  Env env = S3Env({{"CKPT_DIR_PATH", Uri("r")},
                   {"NUM_LAYERS", "1"},
                   {"CKPT_OPTIMIZER", "none"},
                   {"NUM_SAVE_CALLS", "2"},
                   {"NUM_LOAD_CALLS", "1"}});
  auto run = Ckpt({"run", "--results-dir", tmp_.Sub("res")}, env);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // r1's step-3 is not this root's: the saves took step-1 and step-2, and
  // retention removed step-1 by name, nothing of step-1x or step-1.bak.
  nlohmann::json j =
      nlohmann::json::parse(ReadFile(tmp_.Sub("res/result.json")));
  std::vector<uint64_t> saved;
  for (const auto& round : j["rounds"]) {
    if (round["phase"] == "save") saved.push_back(round["step"]);
  }
  EXPECT_EQ(saved, (std::vector<uint64_t>{1, 2}));
  auto ls = swift().Aws({"s3api", "list-objects-v2", "--bucket", bucket_});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  for (const auto& key : foreign) {
    EXPECT_NE(ls.out.find("\"" + key + "\""), std::string::npos) << key;
  }
  EXPECT_EQ(ls.out.find("\"r/checkpoints/step-1/"), std::string::npos)
      << ls.out;
  EXPECT_NE(ls.out.find("\"r/checkpoints/step-2/.metadata\""),
            std::string::npos);
}

// Issue 27: when results go to an object store through a node that is the
// one blocked, a signal still ends the run within seconds, and what was
// measured goes to the local fallback file in the working directory.
TEST_F(S3Test, AStuckRunWithResultsOnS3WritesTheLocalFallbackOnSigterm) {
  Env env = S3Env({{"CKPT_DIR_PATH", Uri("stuck")},
                   {"NUM_LAYERS", "1"},
                   {"CKPT_OPTIMIZER", "none"},
                   {"CKPT_MODE", "save-only"},
                   {"NUM_SAVE_CALLS", "1"},
                   {"CKPTBENCH_TEST_HANG_IN_SAVE", "1"}});
  const std::string cwd = tmp_.Sub("cwd");
  fs::create_directories(cwd);
  const fs::path here = fs::current_path();
  fs::current_path(cwd);  // the child's working directory
  Process p({CkptbenchBinary(), "run", "--results-dir", Uri("res/stuck")}, env);
  fs::current_path(here);
  ASSERT_TRUE(p.WaitForOutput("per checkpoint", 30)) << p.Err();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const auto t0 = std::chrono::steady_clock::now();
  p.Signal(SIGTERM);
  ASSERT_EQ(p.Wait(20), 3) << p.Err();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                .count(),
            10);
  std::vector<fs::path> fallback;
  for (const auto& e : fs::directory_iterator(cwd)) {
    if (e.path().filename().string().rfind("ckptbench-result-", 0) == 0) {
      fallback.push_back(e.path());
    }
  }
  ASSERT_EQ(fallback.size(), 1u) << p.Err();
  EXPECT_NE(p.Err().find("wrote them to " + fallback[0].filename().string() +
                         " in the working directory instead"),
            std::string::npos)
      << p.Err();
  nlohmann::json j = nlohmann::json::parse(ReadFile(fallback[0].string()));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["errors"].dump().find("interrupted by SIGTERM; the run had not "
                                    "stopped"),
            std::string::npos)
      << j["errors"];
}

TEST_F(S3Test, SpreadPrefixesPlaceShardsUnderHashPrefixesAndCleanUpThere) {
  auto r = Ckpt({"run"}, S3Env({{"CKPT_DIR_PATH", Uri("sp")},
                                {"CKPT_S3_SPREAD_PREFIXES", "16"},
                                {"NUM_SAVE_CALLS", "2"},
                                {"NUM_LOAD_CALLS", "1"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // rank r -> hash(r) mod 16: rank 0 -> "00", rank 1 -> "01"; .metadata stays
  // put.
  for (auto key : {"00/sp/checkpoints/step-2/__0_0.distcp",
                   "01/sp/checkpoints/step-2/__1_0.distcp",
                   "sp/checkpoints/step-2/.metadata"}) {
    EXPECT_EQ(
        swift()
            .Aws({"s3api", "head-object", "--bucket", bucket_, "--key", key})
            .exit_code,
        0)
        << key;
  }
  // The older step was removed under its hash prefixes too.
  auto ls = swift().Aws({"s3api", "list-objects-v2", "--bucket", bucket_});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_EQ(ls.out.find("step-1"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("step-2"), std::string::npos);
}

TEST_F(S3Test, ReshardedRestoresReadOnlyTheRangesTheyNeed) {
  // 4 -> 2, 2 -> 4, 8 -> 6 ranks on the same bucket. Ranges of at most 16
  // MiB (each rank's file is smaller): a load makes one ranged GET per
  // contiguous byte range it reads (no HEAD: the sizes are in the
  // .metadata), so the requests counted show the read-ahead fetched nothing
  // outside the ranges.
  for (auto [from, to] : {std::pair{4, 2}, {2, 4}, {8, 6}}) {
    const std::string prefix = absl::StrCat("rs", from, "to", to);
    SCOPED_TRACE(prefix);
    Env common = {{"CKPT_DIR_PATH", Uri(prefix)},
                  {"NUM_LAYERS", "1"},
                  {"CKPT_OPTIMIZER", "none"},
                  {"CKPT_S3_RANGE_SIZE", "16MiB"},
                  {"CKPT_S3_RANGES_IN_FLIGHT", "2"}};
    Env save = common;
    save["NUM_DEVICES"] = std::to_string(from);
    save["CKPT_MODE"] = "save-only";
    save["NUM_LOAD_CALLS"] = "0";
    save["NUM_SAVE_CALLS"] = "1";
    auto s = Ckpt({"run"}, S3Env(save));
    ASSERT_EQ(s.exit_code, 0) << s.err;
    Env load = common;
    load["NUM_DEVICES"] = std::to_string(to);
    load["CKPT_MODE"] = "load-only";
    load["NUM_SAVE_CALLS"] = "0";
    load["NUM_LOAD_CALLS"] = "1";
    auto l = Ckpt({"run", "--results-dir", tmp_.Sub(prefix)}, S3Env(load));
    ASSERT_EQ(l.exit_code, 0) << l.err;
    json j = json::parse(ReadFile(tmp_.Sub(prefix + "/result.json")));
    const json& rs = j["reshard"];
    ASSERT_TRUE(rs.is_object()) << j.dump();
    EXPECT_EQ(rs["from_world"], from);
    EXPECT_EQ(rs["to_world"], to);
    const uint64_t ckpt = j["plan"]["checkpoint_bytes"].get<uint64_t>();
    EXPECT_EQ(rs["bytes_read"].get<uint64_t>(), ckpt);
    EXPECT_EQ(rs["read_amplification"].get<double>(), 1.0);
    const json& round = j["rounds"].back();
    EXPECT_TRUE(round["verified"].get<bool>()) << round.dump();
    EXPECT_EQ(round["bytes"].get<uint64_t>(), ckpt);
    // Per rank too: the requests its files measured are its share's plan
    // (rank r loads share (r + rank_shift) mod the world size).
    std::map<uint64_t, uint64_t> measured;
    for (const auto& k : round["ranks"]) {
      const uint64_t share =
          (k["rank"].get<uint64_t>() + round["rank_shift"].get<uint64_t>()) %
          static_cast<uint64_t>(to);
      measured[share] = k["requests"].get<uint64_t>();
    }
    uint64_t want = 0;
    for (const auto& r : rs["ranks"]) {
      const uint64_t planned = r["reads"].get<uint64_t>();
      EXPECT_EQ(measured[r["rank"].get<uint64_t>()], planned) << r;
      want += planned;
    }
    EXPECT_EQ(round["requests"].get<uint64_t>(), want) << round.dump();
  }
}

TEST_F(S3Test, WrongSecretShowsSignatureDoesNotMatchBeforeAnyRound) {
  auto r = Ckpt({"run"}, S3Env({{"CKPT_DIR_PATH", Uri("bad")},
                                {"AWS_SECRET_ACCESS_KEY", "not-the-secret"}}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("SignatureDoesNotMatch"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not-the-secret"), std::string::npos) << "secret leaked";
}

TEST_F(S3Test, MissingCredentialsAndBucketAreClearErrors) {
  Env env = S3Env({{"CKPT_DIR_PATH", Uri("x")}});
  env.erase("AWS_ACCESS_KEY_ID");
  env.erase("AWS_SECRET_ACCESS_KEY");
  auto r = Ckpt({"run"}, env);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no AWS credentials"), std::string::npos) << r.err;
  auto nb =
      Ckpt({"run"}, S3Env({{"CKPT_DIR_PATH", "s3://no-such-bucket-here/x"}}));
  EXPECT_EQ(nb.exit_code, 2);
  EXPECT_NE(nb.err.find("NoSuchBucket"), std::string::npos) << nb.err;
}

TEST_F(S3Test, ObjectsInteroperateWithTheAwsCli) {
  // ckptbench -> AWS CLI: the same plan saved to local disk and to S3 (both
  // step-1, same seed) must download byte-identical.
  Env local =
      S3Env({{"CKPT_DIR_PATH", tmp_.Sub("local")}, {"NUM_SAVE_CALLS", "1"}});
  ASSERT_EQ(Ckpt({"run", "--save-only"}, local).exit_code, 0);
  Env s3 = S3Env({{"CKPT_DIR_PATH", Uri("mine")}, {"NUM_SAVE_CALLS", "1"}});
  auto saved = Ckpt({"run", "--save-only"}, s3);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  for (std::string f : {"__0_0.distcp", "__1_0.distcp"}) {
    auto cp = swift().Aws(
        {"s3", "cp", Uri("mine/checkpoints/step-1/" + f), tmp_.Sub(f)});
    ASSERT_EQ(cp.exit_code, 0) << cp.err;
    EXPECT_EQ(ReadFile(tmp_.Sub(f)),
              ReadFile(tmp_.Sub("local/checkpoints/step-1/" + f)))
        << f << " differs";
  }
  // AWS CLI -> ckptbench: the CLI uploads the local checkpoint (its own
  // multipart chunking); ckptbench's ranged reader loads and verifies it.
  auto up =
      swift().Aws({"s3", "cp", "--recursive", tmp_.Sub("local/checkpoints"),
                   Uri("fromcli/checkpoints")});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  auto load = Ckpt({"run", "--load-only", "--results-dir", tmp_.Sub("res")},
                   S3Env({{"CKPT_DIR_PATH", Uri("unused")},
                          {"CKPT_RESTORE_PATH", Uri("fromcli/checkpoints")},
                          {"NUM_LOAD_CALLS", "1"}}));
  ASSERT_EQ(load.exit_code, 0) << load.err;
  json j = json::parse(ReadFile(tmp_.Sub("res/result.json")));
  ASSERT_EQ(j["rounds"].size(), 1u);
  EXPECT_FALSE(j["rounds"][0]["staged"].get<bool>());
  EXPECT_TRUE(j["rounds"][0]["verified"].get<bool>());
}

TEST_F(S3Test, MultinodeRunAgainstS3) {
  Cluster c;
  Env env = S3Env({{"CKPT_DIR_PATH", Uri("multi")},
                   {"NUM_NODES", "2"},
                   {"NUM_SAVE_CALLS", "1"},
                   {"NUM_LOAD_CALLS", "1"}});
  auto coord = c.StartCoordinator(env);
  Env node_env = swift().Env();  // nodes bring their own credentials
  auto n0 = c.StartNode(0, node_env);
  auto n1 = c.StartNode(1, node_env);
  ASSERT_EQ(coord->Wait(120), 0) << coord->Err();
  json j = json::parse(ReadFile(c.ResultPath()));
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["rounds"][0]["nodes"].size(), 2u);
  EXPECT_TRUE(j["rounds"][1]["verified"].get<bool>());
  // Time to visible: node 1's own client listed the step and read back the
  // .metadata node 0 wrote (Swift lists a new object at once).
  const json& v = j["rounds"][0]["time_to_visible"];
  ASSERT_TRUE(v.is_object()) << j["rounds"][0].dump();
  EXPECT_TRUE(v["visible"].get<bool>()) << v;
  EXPECT_EQ(v["node"], 1);
  EXPECT_GE(v["polls"].get<int>(), 1);
  EXPECT_GE(v["seconds"].get<double>(), 0);
  EXPECT_LT(v["seconds"].get<double>(), 5.0) << v;
}

// Issue 47: keys that should come from a Kubernetes Secret (s3.keys_secret,
// set where the coordinator reads its settings) and are missing on one node
// (its optional Secret absent): every process exits 2 before any round,
// the coordinator naming that node, the Secret and the command that makes
// it; nothing was written. With the keys on every node the run is as any.
TEST_F(S3Test, ANodeWithoutTheKeysItsSecretShouldGiveStopsTheRunNamingIt) {
  Env env = S3Env({{"CKPT_DIR_PATH", Uri("secret")},
                   {"NUM_NODES", "2"},
                   {"NUM_SAVE_CALLS", "1"},
                   {"NUM_LOAD_CALLS", "1"},
                   {"CKPT_S3_KEYS_SECRET", "ckptbench-s3"}});
  Env keyless = swift().Env();
  keyless.erase("AWS_ACCESS_KEY_ID");
  keyless.erase("AWS_SECRET_ACCESS_KEY");
  {
    Cluster c;
    auto coord = c.StartCoordinator(env);
    auto n0 = c.StartNode(0, swift().Env());
    auto n1 = c.StartNode(1, keyless);
    EXPECT_EQ(coord->Wait(60), 2) << coord->Err();
    for (const char* s : {"node 1 (", "Kubernetes Secret 'ckptbench-s3'",
                          "kubectl create secret generic ckptbench-s3"}) {
      EXPECT_NE(coord->Err().find(s), std::string::npos)
          << s << " in: " << coord->Err();
    }
    EXPECT_EQ(n0->Wait(15), 2) << n0->Err();
    EXPECT_EQ(n1->Wait(15), 2) << n1->Err();
    auto listed = swift().Aws({"s3", "ls", "--recursive", Uri("secret/")});
    EXPECT_EQ(listed.out.find("distcp"), std::string::npos) << listed.out;
  }
  Cluster c;
  auto coord = c.StartCoordinator(env);
  auto n0 = c.StartNode(0, swift().Env());
  auto n1 = c.StartNode(1, swift().Env());
  ASSERT_EQ(coord->Wait(120), 0) << coord->Err();
  json j = json::parse(ReadFile(c.ResultPath()));
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["config"]["s3.keys_secret"]["value"], "ckptbench-s3");
}

// HTTPS through nginx with a throwaway CA: verified against the CA bundle,
// with virtual-hosted addressing (Host <bucket>.localhost, which libcurl
// resolves to loopback); refused before any round without the bundle;
// accepted with verification turned off.
TEST_F(S3Test, HttpsVerifiesTheCertificateAndVirtualHostedAddressingWorks) {
  const std::string& e = swift().endpoint();
  TlsFront tls(std::stoi(e.substr(e.rfind(':') + 1)),
               {"localhost", bucket_ + ".localhost"});
  ASSERT_TRUE(tls.error().empty()) << tls.error();
  const std::string https = "https://localhost:" + std::to_string(tls.port());
  Env base = S3Env({{"AWS_ENDPOINT_URL_S3", https},
                    {"CKPT_DIR_PATH", Uri("tls")},
                    {"NUM_DEVICES", "1"},
                    {"NUM_LAYERS", "1"},
                    {"NUM_SAVE_CALLS", "1"},
                    {"NUM_LOAD_CALLS", "1"},
                    {"CKPT_S3_ADDRESSING", "virtual"}});

  Env trusted = base;
  trusted["AWS_CA_BUNDLE"] = tls.ca_file();
  auto r = Ckpt({"run", "--results-dir", tmp_.Sub("tls")}, trusted);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(ReadFile(tmp_.Sub("tls/result.json")));
  EXPECT_EQ(j["rounds"].back()["phase"], "load");
  EXPECT_TRUE(j["rounds"].back()["verified"].get<bool>());
  EXPECT_NE(j["environment"]["mount_point"].get<std::string>().find("https://"),
            std::string::npos)
      << j["environment"];
  // Virtual-hosted: the AWS CLI (path-style, plain HTTP) finds the object
  // under the bucket the Host header named.
  auto head = swift().Aws({"s3api", "head-object", "--bucket", bucket_, "--key",
                           "tls/checkpoints/step-1/.metadata"});
  EXPECT_EQ(head.exit_code, 0) << head.err;

  auto untrusted = Ckpt({"run", "--results-dir", tmp_.Sub("untrusted")}, base);
  EXPECT_EQ(untrusted.exit_code, 2) << untrusted.err;
  EXPECT_NE(untrusted.err.find("certificate"), std::string::npos)
      << untrusted.err;
  // Virtual-hosted: the bucket is in the host name.
  EXPECT_NE(untrusted.err.find("(https://" + bucket_ + ".localhost:"),
            std::string::npos)
      << untrusted.err;
  // A certificate that does not verify is not retried.
  EXPECT_EQ(untrusted.err.find("attempts)"), std::string::npos)
      << untrusted.err;

  Env unverified = base;
  unverified["CKPT_S3_VERIFY_TLS"] = "false";
  unverified["NUM_LOAD_CALLS"] = "0";
  auto u = Ckpt({"run", "--results-dir", tmp_.Sub("unverified")}, unverified);
  EXPECT_EQ(u.exit_code, 0) << u.err;
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// --results-dir s3://...: result.json is written by node 0 through the S3
// backend, under a prefix of its own; an earlier run's is never replaced
// (unless --overwrite), and a prefix inside the checkpoint path is refused.
TEST_F(S3Test, ResultsGoToAnS3PrefixOfTheirOwn) {
  Env env = S3Env({{"CKPT_DIR_PATH", Uri("ck")},
                   {"NUM_SAVE_CALLS", "1"},
                   {"NUM_LOAD_CALLS", "1"}});
  auto fetch = [&](const std::string& name) {
    auto cp = swift().Aws(
        {"s3", "cp", Uri("results/run1/result.json"), tmp_.Sub(name)});
    EXPECT_EQ(cp.exit_code, 0) << cp.err;
    return json::parse(ReadFile(tmp_.Sub(name)));
  };
  auto r = Ckpt({"run", "--results-dir", Uri("results/run1")}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("results: " + Uri("results/run1") +
                       "/result.json (written by node 0)"),
            std::string::npos)
      << r.err;
  json first = fetch("first.json");
  EXPECT_EQ(first["status"], "ok");
  ASSERT_EQ(first["rounds"].size(), 2u);
  EXPECT_TRUE(first["rounds"][1]["verified"].get<bool>());

  // The same prefix again: refused before any round, nothing replaced.
  auto again = Ckpt({"run", "--results-dir", Uri("results/run1")}, env);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("refusing to replace it"), std::string::npos)
      << again.err;
  EXPECT_EQ(again.out.find("save     1"), std::string::npos) << "a round ran";
  EXPECT_EQ(fetch("same.json")["run_id"], first["run_id"]);
  // Nor does a run that fails before its rounds (its checkpoint bucket is
  // missing) write its failure over them.
  Env missing = env;
  missing["CKPT_DIR_PATH"] = "s3://no-such-bucket-here/ck";
  auto failed = Ckpt({"run", "--results-dir", Uri("results/run1")}, missing);
  EXPECT_EQ(failed.exit_code, 2);
  EXPECT_NE(failed.err.find("refusing to replace it"), std::string::npos)
      << failed.err;
  EXPECT_EQ(fetch("still.json")["run_id"], first["run_id"]);

  // --overwrite replaces it.
  auto over =
      Ckpt({"run", "--results-dir", Uri("results/run1"), "--overwrite"}, env);
  ASSERT_EQ(over.exit_code, 0) << over.err;
  EXPECT_NE(fetch("over.json")["run_id"], first["run_id"]);

  // Inside the checkpoint path: refused before anything runs.
  auto inside = Ckpt({"run", "--results-dir", Uri("ck/results")}, env);
  EXPECT_EQ(inside.exit_code, 2);
  EXPECT_NE(inside.err.find("is inside storage.path (CKPT_DIR_PATH)"),
            std::string::npos)
      << inside.err;
  auto bad = Ckpt({"run", "--results-dir", "s3://"}, env);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("expected s3://BUCKET/PREFIX"), std::string::npos)
      << bad.err;
}

// Multinode: the coordinator has no storage credentials at all; node 0
// writes the results to S3 as it writes .metadata.
TEST_F(S3Test, CoordinatorWithoutCredentialsHasNodeZeroWriteResults) {
  Cluster c;
  Env coord = S3Env({{"CKPT_DIR_PATH", Uri("mn")}, {"NUM_NODES", "2"}});
  coord.erase("AWS_ACCESS_KEY_ID");
  coord.erase("AWS_SECRET_ACCESS_KEY");
  auto co = c.StartCoordinator(coord, {"--results-dir", Uri("mnres")});
  Env node = swift().Env();
  auto n0 = c.StartNode(0, node);
  auto n1 = c.StartNode(1, node);
  ASSERT_EQ(co->Wait(120), 0) << co->Err();
  EXPECT_EQ(n0->Wait(30), 0) << n0->Err();
  EXPECT_EQ(n1->Wait(30), 0) << n1->Err();
  EXPECT_FALSE(fs::exists(c.ResultsDir())) << "results also written locally";
  auto cp =
      swift().Aws({"s3", "cp", Uri("mnres/result.json"), tmp_.Sub("mn.json")});
  ASSERT_EQ(cp.exit_code, 0) << cp.err;
  json j = json::parse(ReadFile(tmp_.Sub("mn.json")));
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["plan"]["num_nodes"], 2);
  // The secret is nowhere in the result.
  EXPECT_EQ(ReadFile(tmp_.Sub("mn.json")).find(node["AWS_SECRET_ACCESS_KEY"]),
            std::string::npos);
}

}  // namespace
}  // namespace ckpt
