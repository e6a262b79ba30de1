// The S3 client against a fault-injecting proxy in front of Swift: storms
// of 503 SlowDown are retried and counted, a reset mid-body is retried, a
// stalled transfer times out, a permanent 403 fails fast, and a failure in
// the middle of a multipart upload leaves no upload behind.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>

#include "tests/testing/fault_proxy.h"
#include "tests/testing/swift_server.h"

namespace ckpt {
namespace {

using nlohmann::json;

class S3FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(swift().endpoint().empty()) << swift().error();
    static int n = 0;
    bucket_ = "fault" + std::to_string(getpid()) + "x" + std::to_string(n++);
    std::string err = swift().MakeBucket(bucket_);
    ASSERT_TRUE(err.empty()) << err;
  }
  SwiftServer& swift() { return SwiftServer::Get(); }
  int SwiftPort() {
    const std::string& e = swift().endpoint();
    return std::stoi(e.substr(e.rfind(':') + 1));
  }
  // ckptbench through the proxy; small checkpoint, 1 MiB blocks.
  ProcessResult Run(const FaultProxy& proxy, std::vector<std::string> args,
                    std::map<std::string, std::string> extra) {
    auto env = swift().Env();
    env["AWS_ENDPOINT_URL_S3"] =
        "http://127.0.0.1:" + std::to_string(proxy.port());
    env["CKPT_DIR_PATH"] = "s3://" + bucket_ + "/f";
    env["NUM_DEVICES"] = "1";
    env["NUM_LAYERS"] = "1";  // one ~167 MiB object: 21 parts of 8 MiB
    env["CKPT_BLOCK_SIZE"] = "1MiB";
    env["NUM_SAVE_CALLS"] = "1";
    env["NUM_LOAD_CALLS"] = "1";
    for (auto& [k, v] : extra) env[k] = v;
    args.insert(args.begin(), CkptbenchBinary());
    args.push_back("--results-dir");
    args.push_back(tmp_.Sub("res"));
    return RunProcess(args, env);
  }
  json Result() { return json::parse(ReadFile(tmp_.Sub("res/result.json"))); }
  bool IsPart(const ProxyRequest& r) {
    return r.method == "PUT" &&
           r.target.find("partNumber=") != std::string::npos;
  }
  bool IsRangedGet(const ProxyRequest& r) {
    return r.method == "GET" && r.target.find("distcp") != std::string::npos;
  }
  std::string bucket_;
  TempDir tmp_;
};

TEST_F(S3FaultTest, SlowDownStormIsRetriedAndCounted) {
  std::atomic<int> storm{6};
  FaultProxy proxy(SwiftPort(), [&](const ProxyRequest& r) {
    Fault f;
    if (IsPart(r) && storm.fetch_sub(1) > 0)
      f.kind = FaultKind::kError;  // 503 SlowDown
    return f;
  });
  auto r = Run(proxy, {"run"}, {{"CKPT_S3_MAX_ATTEMPTS", "10"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = Result();
  EXPECT_EQ(j["rounds"][0]["throttles"], 6);
  EXPECT_EQ(j["rounds"][0]["retries"], 6);
  EXPECT_EQ(proxy.faults_injected(), 6);
  EXPECT_TRUE(j["rounds"][1]["verified"].get<bool>());
}

TEST_F(S3FaultTest, ResetMidBodyIsRetried) {
  std::atomic<int> resets{2};
  FaultProxy proxy(SwiftPort(), [&](const ProxyRequest& r) {
    Fault f;
    if (IsRangedGet(r) && resets.fetch_sub(1) > 0)
      f.kind = FaultKind::kResetMidBody;
    return f;
  });
  auto r = Run(proxy, {"run"}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = Result();
  EXPECT_EQ(j["rounds"][1]["retries"], 2);
  EXPECT_TRUE(j["rounds"][1]["verified"].get<bool>());
}

TEST_F(S3FaultTest, StalledTransferTimesOut) {
  std::atomic<int> stalls{1};
  FaultProxy proxy(SwiftPort(), [&](const ProxyRequest& r) {
    Fault f;
    if (IsRangedGet(r) && stalls.fetch_sub(1) > 0) {
      f.kind = FaultKind::kStall;
      f.stall_seconds = 20;
    }
    return f;
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = Run(proxy, {"run"},
               {{"CKPT_S3_STALL_TIMEOUT", "1"}, {"CKPT_S3_MAX_ATTEMPTS", "1"}});
  double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("transfer stalled"), std::string::npos) << r.err;
  EXPECT_LT(took, 15);  // the stall timeout fired, not the 20 s stall
  EXPECT_EQ(Result()["rounds"].back()["status"], "failed");
}

TEST_F(S3FaultTest, PermanentForbiddenFailsFast) {
  FaultProxy proxy(SwiftPort(), [](const ProxyRequest&) {
    Fault f;
    f.kind = FaultKind::kError;
    f.status = 403;
    f.code = "AccessDenied";
    return f;
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = Run(proxy, {"run"}, {{"CKPT_S3_MAX_ATTEMPTS", "10"}});
  double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("HTTP 403 AccessDenied"), std::string::npos) << r.err;
  EXPECT_EQ(proxy.faults_injected(), 1);  // no retries of a permanent error
  EXPECT_LT(took, 5);
}

TEST_F(S3FaultTest, FailureMidMultipartLeavesNoUploadBehind) {
  FaultProxy proxy(SwiftPort(), [&](const ProxyRequest& r) {
    Fault f;
    if (IsPart(r) && r.target.find("partNumber=3&") != std::string::npos) {
      f.kind = FaultKind::kError;
      f.status = 403;
      f.code = "AccessDenied";
    }
    return f;
  });
  auto r = Run(proxy, {"run", "--save-only"}, {});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("AccessDenied"), std::string::npos) << r.err;
  auto uploads =
      swift().Aws({"s3api", "list-multipart-uploads", "--bucket", bucket_});
  ASSERT_EQ(uploads.exit_code, 0) << uploads.err;
  EXPECT_EQ(uploads.out.find("UploadId"), std::string::npos) << uploads.out;
}

}  // namespace
}  // namespace ckpt
