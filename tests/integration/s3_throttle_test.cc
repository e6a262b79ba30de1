// Key-prefix spreading (s3.spread_prefixes) against a store that throttles
// per prefix: a proxy in front of Swift gives every key prefix its own
// token buckets (reads, writes) and answers 503 SlowDown past them
// (PrefixThrottle), as S3 does per partitioned prefix. Eight ranks under
// one prefix share its buckets and are throttled; spread over eight
// prefixes, each rank has its own and is not. A test of the mechanism and
// of ckptbench's counting, not a claim about S3's rates (docs/fidelity.md).
// A serve load through the limiter has its throttles counted per rank.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include "tests/testing/fault_proxy.h"
#include "tests/testing/prefix_throttle.h"
#include "tests/testing/result_files.h"
#include "tests/testing/swift_server.h"

namespace ckpt {
namespace {

using nlohmann::json;

// --- the limiter alone, on a hand-moved clock

ProxyRequest Get(const std::string& target) {
  ProxyRequest r;
  r.method = "GET";
  r.target = target;
  return r;
}

TEST(PrefixThrottleTest, PrefixIsTheFirstComponentAfterTheBucket) {
  EXPECT_EQ(PrefixThrottle::PrefixOf("/b/03/run/checkpoints/__3_0.distcp"),
            "03");
  EXPECT_EQ(PrefixThrottle::PrefixOf("/b/run/x?partNumber=2&uploadId=u"),
            "run");
  EXPECT_EQ(PrefixThrottle::PrefixOf("/b/run/?uploads"), "run");
  EXPECT_EQ(PrefixThrottle::PrefixOf("/b/ready"), "");
  EXPECT_EQ(PrefixThrottle::PrefixOf("/b?list-type=2&prefix=run/"), "");
  EXPECT_EQ(PrefixThrottle::PrefixOf("/b"), "");
}

TEST(PrefixThrottleTest, EachPrefixHasItsOwnBurstAndRate) {
  double now = 0;
  PrefixThrottleOptions o;
  o.reads = {2, 3};
  o.now = [&] { return now; };
  PrefixThrottle t(o);
  auto passes = [&](const std::string& target) {
    return t.Check(Get(target)).kind == FaultKind::kNone;
  };
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(passes("/b/a/k")) << i;
  Fault f = t.Check(Get("/b/a/k"));
  EXPECT_EQ(f.kind, FaultKind::kError);
  EXPECT_EQ(f.status, 503);
  EXPECT_EQ(f.code, "SlowDown");
  EXPECT_TRUE(passes("/b/c/k"));  // another prefix, another bucket
  now = 0.4;                      // 0.8 tokens: still none
  EXPECT_FALSE(passes("/b/a/k"));
  now = 0.5;  // 1 token
  EXPECT_TRUE(passes("/b/a/k"));
  EXPECT_FALSE(passes("/b/a/k"));
  now = 100;  // refilled up to the burst, not beyond
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(passes("/b/a/k")) << i;
  EXPECT_FALSE(passes("/b/a/k"));
  EXPECT_EQ(t.Throttled(), 4);
  EXPECT_EQ(t.ThrottledByPrefix(), (std::map<std::string, int>{{"a", 4}}));
  EXPECT_EQ(t.PassedByPrefix(),
            (std::map<std::string, int>{{"a", 7}, {"c", 1}}));
}

TEST(PrefixThrottleTest, ReadsAndWritesHaveSeparateBuckets) {
  PrefixThrottleOptions o;
  o.reads = {0, 2};
  o.writes = {0, 1};
  PrefixThrottle t(o);
  ProxyRequest put = Get("/b/p/k");
  put.method = "PUT";
  ProxyRequest head = Get("/b/p/k");
  head.method = "HEAD";
  EXPECT_EQ(t.Check(put).kind, FaultKind::kNone);
  put.method = "POST";
  EXPECT_EQ(t.Check(put).kind, FaultKind::kError);
  EXPECT_EQ(t.Check(head).kind, FaultKind::kNone);
  EXPECT_EQ(t.Check(Get("/b/p/k")).kind, FaultKind::kNone);
  EXPECT_EQ(t.Check(Get("/b/p/k")).kind, FaultKind::kError);
  EXPECT_EQ(t.ThrottledByPrefix(), (std::map<std::string, int>{{"p", 2}}));
}

TEST(PrefixThrottleTest, OnlyRequestsItAppliesToAreLimited) {
  PrefixThrottleOptions o;
  o.reads = {0, 1};
  o.applies = [](const ProxyRequest& r) {
    return r.target.find(".distcp") != std::string::npos;
  };
  PrefixThrottle t(o);
  EXPECT_EQ(t.Check(Get("/b/p/__0_0.distcp")).kind, FaultKind::kNone);
  EXPECT_EQ(t.Check(Get("/b/p/__0_0.distcp")).kind, FaultKind::kError);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(t.Check(Get("/b/p/.metadata")).kind, FaultKind::kNone);
  EXPECT_EQ(t.Throttled(), 1);
}

// --- ckptbench through the limiter

// Eight ranks of 6.7 MiB (NUM_LAYERS=1, no optimizer state). Each rank's
// shard requests in the run: 4 writes to save (create, two parts of at
// most 5 MiB, complete) and 14 reads to load (14 ranged GETs of 512 KiB;
// no HEAD, the size is in the .metadata).
constexpr int kRanks = 8;
constexpr int kWritesPerRank = 4, kReadsPerRank = 14;
// Sized so that one rank's requests fit one prefix's bursts, and eight
// ranks' are far beyond them: under one prefix the save's 32 writes need
// at least (32 - 6) / 8 = 3.3 s of refill and the load's 112 reads
// (112 - 18) / 30 = 3.1 s, while unthrottled each takes about 0.6 s here
// (Swift's pace, not ckptbench's).
constexpr TokenRate kWrites = {8, 6};
constexpr TokenRate kReads = {30, 18};
static_assert(kWrites.burst >= kWritesPerRank && kReads.burst >= kReadsPerRank);
constexpr int kSpread = 8;  // rank r -> prefix r mod 8: one rank each

// Shard objects' requests: what spreading moves. The .metadata, claims and
// listings stay under the run's own prefix either way, and some are made
// outside the timed rounds, whose counts are compared with the proxy's.
bool IsShardRequest(const ProxyRequest& r) {
  return r.target.find(".distcp") != std::string::npos;
}

struct ThrottledRun {
  ProcessResult process;
  json result;
  int proxy_503s = 0;
  std::map<std::string, int> throttled_by_prefix, passed_by_prefix;
  double seconds = 0;
};

template <typename T = uint64_t>
T Sum(const json& rounds, const char* field) {
  T n = 0;
  for (const auto& r : rounds) n += r[field].get<T>();
  return n;
}

class S3ThrottleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(swift().endpoint().empty()) << swift().error();
    bucket_ = SwiftServer::UniqueBucket("throttle");
    std::string err = swift().MakeBucket(bucket_);
    ASSERT_TRUE(err.empty()) << err;
  }
  // What the server logged, when the test failed (SwiftServer::LogTail).
  void TearDown() override {
    if (HasFailure()) std::cerr << swift().LogTail();
  }
  SwiftServer& swift() { return SwiftServer::Get(); }
  int SwiftPort() {
    const std::string& e = swift().endpoint();
    return std::stoi(e.substr(e.rfind(':') + 1));
  }
  // One save and one load of 8 ranks under s3://bucket/<name>, through a
  // fresh limiter.
  ThrottledRun Run(const std::string& name, int spread) {
    PrefixThrottleOptions o;
    o.reads = kReads;
    o.writes = kWrites;
    o.applies = IsShardRequest;
    PrefixThrottle throttle(o);
    FaultProxy proxy(SwiftPort(), throttle.Rule());
    auto env = swift().Env();
    env["AWS_ENDPOINT_URL_S3"] =
        "http://127.0.0.1:" + std::to_string(proxy.port());
    env["CKPT_DIR_PATH"] = "s3://" + bucket_ + "/" + name;
    env["CKPT_S3_SPREAD_PREFIXES"] = std::to_string(spread);
    env["NUM_DEVICES"] = std::to_string(kRanks);
    env["NUM_LAYERS"] = "1";
    env["CKPT_OPTIMIZER"] = "none";
    env["NUM_SAVE_CALLS"] = "1";
    env["NUM_LOAD_CALLS"] = "1";
    env["CKPT_S3_MULTIPART_THRESHOLD"] = "5MiB";
    env["CKPT_S3_PART_SIZE"] = "5MiB";
    env["CKPT_S3_RANGE_SIZE"] = "512KiB";
    // Enough attempts that no request runs out under the shared prefix
    // (full-jitter backoff, 0.2 s x 2^attempt at most).
    env["CKPT_S3_MAX_ATTEMPTS"] = "12";
    const std::string results = tmp_.Sub(name);
    auto t0 = std::chrono::steady_clock::now();
    ThrottledRun out;
    out.process =
        RunProcess({CkptbenchBinary(), "run", "--results-dir", results}, env);
    out.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    out.proxy_503s = throttle.Throttled();
    out.throttled_by_prefix = throttle.ThrottledByPrefix();
    out.passed_by_prefix = throttle.PassedByPrefix();
    std::string text = ReadFile(results + "/result.json");
    if (!text.empty()) out.result = json::parse(text, nullptr, false);
    return out;
  }
  std::string bucket_;
  TempDir tmp_;
};

// What both runs must show, whatever the throttling: success, a verified
// load, and the 503s ckptbench counted (per round, per node) equal to those
// the proxy sent, each retried.
void ExpectCountedAndVerified(const ThrottledRun& run) {
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  ASSERT_TRUE(run.result.is_object()) << run.process.err;
  const json& rounds = run.result["rounds"];
  ASSERT_EQ(rounds.size(), 2u) << rounds.dump();
  EXPECT_EQ(rounds[0]["phase"], "save");
  EXPECT_EQ(rounds[1]["phase"], "load");
  EXPECT_TRUE(rounds[1]["verified"].get<bool>());
  for (const auto& r : rounds) {
    SCOPED_TRACE(r["phase"].get<std::string>());
    EXPECT_EQ(r["status"], "ok") << r.dump();
    // Exactly the shard requests, each once, plus the 503s' retries: the
    // proxy is the only source of retries here.
    const uint64_t shard_requests =
        kRanks * (r["phase"] == "save" ? kWritesPerRank : kReadsPerRank);
    EXPECT_EQ(r["requests"].get<uint64_t>(),
              shard_requests + r["retries"].get<uint64_t>());
    EXPECT_EQ(r["retries"], r["throttles"]);
    ASSERT_EQ(r["nodes"].size(), 1u);
    EXPECT_EQ(r["nodes"][0]["throttles"], r["throttles"]);
    EXPECT_EQ(r["nodes"][0]["retries"], r["retries"]);
    EXPECT_EQ(r["nodes"][0]["requests"], r["requests"]);
    // Per file, the same counts: every request and retry of the round was
    // one file's, sent on its thread or on the workers uploading its parts
    // or fetching its ranges. Per rank (one file each): its planned
    // requests plus its retries.
    ASSERT_EQ(r["files"]["rows"].size(), static_cast<size_t>(kRanks));
    EXPECT_EQ(FileColumnSum(r, "requests"), r["requests"].get<uint64_t>());
    EXPECT_EQ(FileColumnSum(r, "retries"), r["retries"].get<uint64_t>());
    for (const auto& k : r["ranks"]) {
      EXPECT_EQ(k["requests"].get<uint64_t>(),
                shard_requests / kRanks + k["retries"].get<uint64_t>())
          << k;
    }
  }
  // Every 503 the proxy sent happened in a timed round and was counted as
  // a throttle, and retried.
  EXPECT_EQ(Sum(rounds, "throttles"), static_cast<uint64_t>(run.proxy_503s));
  EXPECT_EQ(Sum(rounds, "retries"), static_cast<uint64_t>(run.proxy_503s));
}

TEST_F(S3ThrottleTest, SpreadingKeysOverPrefixesAvoidsPerPrefixThrottling) {
  ThrottledRun one = Run("one-prefix", 0);
  ThrottledRun spread = Run("spread", kSpread);
  {
    SCOPED_TRACE("one prefix");
    ExpectCountedAndVerified(one);
  }
  {
    SCOPED_TRACE("spread");
    ExpectCountedAndVerified(spread);
  }
  if (HasFatalFailure()) return;
  const json& one_rounds = one.result["rounds"];
  const json& spread_rounds = spread.result["rounds"];
  std::cout << "503s sent by the proxy / counted by ckptbench (save + load), "
               "run seconds: one prefix "
            << one.proxy_503s << " / " << one_rounds[0]["throttles"] << " + "
            << one_rounds[1]["throttles"] << ", " << one.seconds << " s; "
            << kSpread << " prefixes " << spread.proxy_503s << " / "
            << spread_rounds[0]["throttles"] << " + "
            << spread_rounds[1]["throttles"] << ", " << spread.seconds
            << " s\n";

  // Under one prefix every shard request shares one pair of buckets: many
  // 503s, in both rounds.
  EXPECT_EQ(one.passed_by_prefix.size(), 1u);
  EXPECT_EQ(one.passed_by_prefix.count("one-prefix"), 1u);
  EXPECT_EQ(one.throttled_by_prefix,
            (std::map<std::string, int>{{"one-prefix", one.proxy_503s}}));
  EXPECT_GE(one.proxy_503s, 30);
  EXPECT_GE(one_rounds[0]["throttles"].get<uint64_t>(), 1u);
  EXPECT_GE(one_rounds[1]["throttles"].get<uint64_t>(), 10u);
  // Spread: eight prefixes "00".."07", one rank's requests each, all within
  // their bursts whatever the timing: no 503 at all.
  EXPECT_EQ(spread.passed_by_prefix.size(), static_cast<size_t>(kSpread));
  EXPECT_EQ(spread.passed_by_prefix.count("00"), 1u);
  EXPECT_EQ(spread.passed_by_prefix.count("07"), 1u);
  EXPECT_EQ(spread.proxy_503s, 0);
  EXPECT_TRUE(spread.throttled_by_prefix.empty());
  EXPECT_LT(Sum(spread_rounds, "throttles") * 10, Sum(one_rounds, "throttles"));
  // The same work reached the store: each shard request passed once.
  auto total = [](const std::map<std::string, int>& m) {
    return std::accumulate(m.begin(), m.end(), 0,
                           [](int n, const auto& kv) { return n + kv.second; });
  };
  EXPECT_EQ(total(one.passed_by_prefix), total(spread.passed_by_prefix));
  EXPECT_EQ(total(spread.passed_by_prefix),
            kRanks * (kWritesPerRank + kReadsPerRank));
  // The time the nodes slept backing off, per round and per node.
  ASSERT_TRUE(one_rounds[0].contains("backoff_seconds"));
  EXPECT_GT(Sum<double>(one_rounds, "backoff_seconds"), 0.0);
  EXPECT_EQ(Sum<double>(spread_rounds, "backoff_seconds"), 0.0);
  for (const auto& round : one_rounds) {
    double nodes = 0;
    for (const auto& n : round["nodes"]) {
      nodes += n["backoff_seconds"].get<double>();
    }
    EXPECT_DOUBLE_EQ(nodes, round["backoff_seconds"].get<double>());
  }
  // Throttling costs time: the run under one prefix waited for tokens.
  EXPECT_GT(one.seconds, spread.seconds);
  EXPECT_LT(one.seconds + spread.seconds, 45);
}

// A serve load through the limiter (its GETs of the model's files limited,
// under one prefix): each 503 is counted on the rank whose read met it (or,
// downloading, on the replica's copy), and the counts add up to the
// round's (the node's), each retried.
// GETs of a model's files at 40 a second, bursts of 16.
PrefixThrottleOptions ModelGetThrottle() {
  PrefixThrottleOptions o;
  o.reads = {40, 16};
  o.applies = [](const ProxyRequest& r) {
    return r.method == "GET" &&
           r.target.find(".safetensors") != std::string::npos;
  };
  return o;
}

TEST_F(S3ThrottleTest, AServeLoadsThrottlesAreCountedOnTheRanksThatMetThem) {
  auto env = swift().Env();
  env["CKPT_WORKLOAD"] = "serve";
  env["CKPT_SERVE_PATH"] = "s3://" + bucket_ + "/model";
  env["CKPT_MODEL"] = "llama-3-tiny";
  env["CKPT_SERVE_FILE_BYTES"] = "1MiB";
  env["CKPT_SERVE_CHUNK_SIZE"] = "64KiB";
  env["CKPT_SERVE_CONCURRENCY"] = "4";
  env["CKPT_SERVE_SPLIT"] = "files";
  env["NUM_DEVICES"] = "4";
  env["CKPT_S3_MAX_ATTEMPTS"] = "12";
  // Made (and loaded) unthrottled first; then loaded streamed, and
  // downloaded (each file copied whole in 64 KiB ranges), through the
  // limiter.
  ProcessResult made = RunProcess(
      {CkptbenchBinary(), "run", "-q", "--results-dir", tmp_.Sub("made")}, env);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // A load's 4 ranks each read every file's header (2 GETs each, 5 files)
  // and a share of the model's 4.25 MiB in 64 KiB ranges: about 110 GETs,
  // far past a burst of 16 at 40 a second; a download about 70.
  for (const std::string mode : {"stream", "download"}) {
    SCOPED_TRACE(mode);
    PrefixThrottle throttle(ModelGetThrottle());
    FaultProxy proxy(SwiftPort(), throttle.Rule());
    Env e = env;
    e["AWS_ENDPOINT_URL_S3"] =
        "http://127.0.0.1:" + std::to_string(proxy.port());
    e["CKPT_SERVE_READ_MODE"] = mode;
    e["CKPT_SERVE_DOWNLOAD_PATH"] = tmp_.path();
    const std::string results = tmp_.Sub(mode);
    ProcessResult run = RunProcess(
        {CkptbenchBinary(), "run", "-q", "--results-dir", results}, e);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const json j = json::parse(ReadFile(results + "/result.json"));
    uint64_t counted = 0;
    int loads = 0, ranks_throttled = 0;
    for (const auto& round : j["rounds"]) {
      if (!round.contains("replica_load")) continue;
      SCOPED_TRACE(round["phase"].get<std::string>() + " " +
                   std::to_string(++loads));
      EXPECT_EQ(round["status"], "ok") << round.dump();
      EXPECT_EQ(round["verified"], true);
      const json& load = round["replica_load"];
      ASSERT_EQ(load["ranks_loaded"].size(), 4u);
      uint64_t throttles = 0, retries = 0;
      for (const auto& k : load["ranks_loaded"]) {
        EXPECT_EQ(k["retries"], k["throttles"]) << k;
        throttles += k["throttles"].get<uint64_t>();
        retries += k["retries"].get<uint64_t>();
        ranks_throttled += k["throttles"].get<uint64_t>() > 0;
      }
      // The replica's: its ranks' and, downloading, its copy's (the ranks
      // then read the local copy: no request of theirs is throttled).
      const json& replica = load["replicas"][0];
      EXPECT_EQ(replica["throttles"], round["throttles"]);
      EXPECT_EQ(replica["retries"], round["retries"]);
      if (mode == "download") {
        EXPECT_EQ(throttles, 0u);
        throttles = retries = replica["throttles"].get<uint64_t>();
      }
      EXPECT_EQ(throttles, round["throttles"].get<uint64_t>());
      EXPECT_EQ(retries, round["retries"].get<uint64_t>());
      counted += throttles;
    }
    std::cout << mode << " loads through the limiter: " << loads
              << ", 503s sent " << throttle.Throttled() << ", counted "
              << counted << " (" << ranks_throttled
              << " rank loads throttled)\n";
    EXPECT_GE(loads, 1);
    EXPECT_GE(counted, mode == "stream" ? 10u : 1u);
    // Any others were met by the prepare's header reads, before the clock.
    EXPECT_LE(counted, static_cast<uint64_t>(throttle.Throttled()));
    if (mode == "stream") {
      EXPECT_GE(ranks_throttled, 2);
    }
  }

  // Two replicas (one process, one host) reading the same objects at once
  // through the limiter: every object is read by both, and the throttles
  // are attributed to the objects and the replicas that met them.
  PrefixThrottle throttle(ModelGetThrottle());
  FaultProxy proxy(SwiftPort(), throttle.Rule());
  Env e = env;
  e["AWS_ENDPOINT_URL_S3"] = "http://127.0.0.1:" + std::to_string(proxy.port());
  e["NUM_NODES"] = "2";
  e["CKPT_SERVE_LOADS"] = "1";
  const std::string results = tmp_.Sub("fleet");
  ProcessResult run =
      RunProcess({CkptbenchBinary(), "run", "--results-dir", results}, e);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json j = json::parse(ReadFile(results + "/result.json"));
  const json& load = j["rounds"].back()["replica_load"];
  ASSERT_EQ(load["replicas"].size(), 2u);
  ASSERT_EQ(load["objects"].size(), 5u);  // the model's 5 files
  uint64_t on_objects = 0, on_replicas = 0;
  for (const auto& p : load["replicas"]) {
    uint64_t mine = 0;
    ASSERT_EQ(p["objects"].size(), 5u) << p;
    for (const auto& x : p["objects"]) {
      EXPECT_LE(x["throttles"].get<uint64_t>(), x["requests"].get<uint64_t>());
      mine += x["throttles"].get<uint64_t>();
    }
    // Its objects' are its tensor reads'; its header reads' are its own.
    EXPECT_LE(mine, p["throttles"].get<uint64_t>()) << p;
    on_replicas += p["throttles"].get<uint64_t>();
  }
  uint64_t last = UINT64_MAX;
  for (const auto& h : load["objects"]) {
    EXPECT_EQ(h["replicas"], 2) << h;  // a hot object: every replica's
    EXPECT_LE(h["throttles"].get<uint64_t>(), last);  // most throttled first
    last = h["throttles"].get<uint64_t>();
    on_objects += last;
  }
  EXPECT_GE(on_objects, 10u);
  EXPECT_LE(on_objects, on_replicas);
  EXPECT_NE(run.out.find("throttled objects: model-"), std::string::npos)
      << run.out;
  std::cout << "two replicas through the limiter: " << on_objects
            << " throttles on objects, " << on_replicas << " on replicas\n";
}

}  // namespace
}  // namespace ckpt
