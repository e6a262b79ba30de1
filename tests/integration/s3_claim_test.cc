// Step claims on S3: with If-None-Match (through ConditionalPutProxy, whose
// S3 behaviour the AWS CLI checks first) exactly one of many racing claims
// wins; on Swift itself, which refuses conditional PUTs, the listing
// fallback lets at most one win; two ckptbench runs started together on
// one prefix commit distinct steps and overwrite nothing.
#include <glob.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "node/node_agent.h"
#include "node/storage/s3_storage.h"
#include "node/storage/storage_factory.h"
#include "tests/testing/conditional_put_proxy.h"
#include "tests/testing/swift_server.h"

namespace ckpt {
namespace {

using nlohmann::json;

// An AWS CLI that knows put-object --if-none-match (Debian's 2.9 predates
// it; the machine's pip-installed 1.x has it); "" if there is none.
std::string AwsCliWithIfNoneMatch() {
  std::vector<std::string> candidates = {"/usr/local/bin/aws"};
  glob_t g;
  if (glob("/root/.pyenv/versions/*/bin/aws", 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) candidates.push_back(g.gl_pathv[i]);
    globfree(&g);
  }
  candidates.push_back("/usr/bin/aws");
  for (const auto& c : candidates) {
    if (!std::filesystem::exists(c)) continue;
    auto r = RunProcess({c, "s3api", "put-object", "--if-none-match", "*"},
                        {{"HOME", "/nonexistent"}});
    if (r.err.find("Unknown options") == std::string::npos &&
        r.err.find("--bucket") != std::string::npos) {
      return c;
    }
  }
  return "";
}

class S3ClaimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(swift().endpoint().empty()) << swift().error();
    bucket_ = SwiftServer::UniqueBucket("claim");
    ASSERT_EQ(swift().MakeBucket(bucket_), "");
    for (const auto& [k, v] : swift().Env()) setenv(k.c_str(), v.c_str(), 1);
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
  std::string Endpoint(int port) {
    return "http://127.0.0.1:" + std::to_string(port);
  }
  std::shared_ptr<Storage> Open(int port, const std::string& claim) {
    BackendOptions options;
    options.s3.endpoint = Endpoint(port);
    options.s3.region = "us-east-1";
    options.s3.claim = ParseKind<S3Claim>(claim).value();
    auto loc = OpenStorage("s3://" + bucket_ + "/c", options);
    EXPECT_TRUE(loc.ok()) << loc.status();
    return loc.ok() ? std::move(loc->storage) : nullptr;
  }
  // `n` threads claim step-1 at once, each as run "r<i>"; the winners.
  std::vector<std::string> Race(int port, const std::string& claim, int n,
                                std::vector<std::string>* errors) {
    std::vector<absl::StatusOr<std::string>> got(n, absl::UnknownError(""));
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        auto st = Open(port, claim);
        if (st)
          got[i] = st->ClaimDir("s3://" + bucket_ + "/c/checkpoints/step-1",
                                "r" + std::to_string(i));
      });
    }
    for (auto& t : threads) t.join();
    std::vector<std::string> winners;
    for (int i = 0; i < n; ++i) {
      if (got[i].ok()) {
        winners.push_back("r" + std::to_string(i));
      } else {
        EXPECT_TRUE(absl::IsAlreadyExists(got[i].status())) << got[i].status();
        errors->push_back(std::string(got[i].status().message()));
      }
    }
    return winners;
  }
  std::vector<std::string> Keys(const std::string& prefix) {
    auto r = swift().Aws(
        {"s3api", "list-objects-v2", "--bucket", bucket_, "--prefix", prefix});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> keys;
    if (r.out.empty()) return keys;
    json j = json::parse(r.out);
    for (const auto& o : j.value("Contents", json::array()))
      keys.push_back(o["Key"]);
    return keys;
  }
  std::string bucket_;
  TempDir tmp_;
};

TEST_F(S3ClaimTest, ConditionalPutProxyAnswersTheAwsCliAsS3Does) {
  const std::string aws = AwsCliWithIfNoneMatch();
  if (aws.empty()) GTEST_SKIP() << "no AWS CLI with put-object --if-none-match";
  ConditionalPutProxy proxy(SwiftPort(), "test:tester", "testing");
  const std::string body = tmp_.Sub("body");
  std::ofstream(body) << "first";
  auto put = [&](int port, const std::string& file) {
    return RunProcess({aws, "--endpoint-url", Endpoint(port), "s3api",
                       "put-object", "--bucket", bucket_, "--key", "k",
                       "--body", file, "--if-none-match", "*"},
                      swift().Env());
  };
  // Swift alone refuses the header: why the proxy exists.
  auto direct = put(SwiftPort(), body);
  EXPECT_NE(direct.exit_code, 0);
  EXPECT_NE(direct.err.find("NotImplemented"), std::string::npos) << direct.err;
  auto first = put(proxy.port(), body);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string other = tmp_.Sub("other");
  std::ofstream(other) << "second";
  auto second = put(proxy.port(), other);
  EXPECT_NE(second.exit_code, 0);
  EXPECT_NE(second.err.find("PreconditionFailed"), std::string::npos)
      << second.err;
  auto get = swift().Aws({"s3", "cp", "s3://" + bucket_ + "/k", "-"});
  EXPECT_EQ(get.out, "first");
  // After a DELETE the key can be created again.
  ASSERT_EQ(RunProcess({aws, "--endpoint-url", Endpoint(proxy.port()), "s3api",
                        "delete-object", "--bucket", bucket_, "--key", "k"},
                       swift().Env())
                .exit_code,
            0);
  EXPECT_EQ(put(proxy.port(), other).exit_code, 0);
  EXPECT_EQ(proxy.granted(), 2);
  EXPECT_EQ(proxy.refused(), 1);
}

TEST_F(S3ClaimTest, IfNoneMatchLetsExactlyOneOfManyRacingClaimsWin) {
  ConditionalPutProxy proxy(SwiftPort(), "test:tester", "testing");
  std::vector<std::string> errors;
  auto winners = Race(proxy.port(), "if_none_match", 8, &errors);
  ASSERT_EQ(winners.size(), 1u) << ::testing::PrintToString(errors);
  EXPECT_EQ(Keys("c/checkpoints/step-1/"),
            std::vector<std::string>{"c/checkpoints/step-1/.ckptbench-claim"});
  auto held = swift().Aws(
      {"s3", "cp", "s3://" + bucket_ + "/c/checkpoints/step-1/.ckptbench-claim",
       "-"});
  EXPECT_EQ(held.out, winners[0]);
  // A later claim of the held step loses, and names what holds it.
  auto st = Open(proxy.port(), "if_none_match");
  auto again = st->ClaimDir("s3://" + bucket_ + "/c/checkpoints/step-1", "z");
  EXPECT_TRUE(absl::IsAlreadyExists(again.status())) << again.status();
}

// A store that takes If-None-Match and ignores it would let every racer
// "win": auto mode checks that a second conditional PUT of its own claim
// is refused, and otherwise claims by listing.
TEST_F(S3ClaimTest, AStoreThatIgnoresIfNoneMatchFallsBackToTheListing) {
  ConditionalPutProxy proxy(SwiftPort(), "test:tester", "testing",
                            /*ignore=*/true);
  std::vector<std::string> errors;
  auto winners = Race(proxy.port(), "auto", 6, &errors);
  ASSERT_LE(winners.size(), 1u) << ::testing::PrintToString(winners);
  std::vector<std::string> expected;
  for (const auto& w : winners)
    expected.push_back("c/checkpoints/step-1/.ckptbench-claim-" + w);
  EXPECT_EQ(Keys("c/checkpoints/step-1/"), expected);
  EXPECT_GE(proxy.granted(), 2);  // the header went through, and was ignored
}

TEST_F(S3ClaimTest, WithoutConditionalPutsTheListingLetsAtMostOneWin) {
  // Swift answers 501 to If-None-Match: auto falls back to claim objects.
  std::vector<std::string> errors;
  auto winners = Race(SwiftPort(), "auto", 6, &errors);
  ASSERT_LE(winners.size(), 1u);
  std::vector<std::string> expected;
  for (const auto& w : winners)
    expected.push_back("c/checkpoints/step-1/.ckptbench-claim-" + w);
  // Losers took their claim objects back.
  EXPECT_EQ(Keys("c/checkpoints/step-1/"), expected);
  // One at a time, the first claim wins and the next one loses.
  auto st = Open(SwiftPort(), "listing");
  const std::string dir = "s3://" + bucket_ + "/c/checkpoints/step-2";
  auto first = st->ClaimDir(dir, "a");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, ".ckptbench-claim-a");
  auto second = st->ClaimDir(dir, "b");
  EXPECT_TRUE(absl::IsAlreadyExists(second.status())) << second.status();
  EXPECT_NE(second.status().message().find(".ckptbench-claim-a"),
            std::string::npos);
  // if_none_match on a store without it is an error that says so.
  auto strict = Open(SwiftPort(), "if_none_match")->ClaimDir(dir + "x", "c");
  EXPECT_TRUE(absl::IsUnimplemented(strict.status())) << strict.status();
  EXPECT_NE(strict.status().message().find("not supported"), std::string::npos)
      << strict.status();
}

// Two save-only runs started together on one prefix: each commits steps of
// its own, none overwritten (or one stops with a clear refusal).
void TwoRunsTogether(const SwiftServer& swift, const std::string& endpoint,
                     const std::string& uri, const std::string& claim,
                     TempDir& tmp) {
  std::vector<std::unique_ptr<Process>> runs;
  for (int i = 0; i < 2; ++i) {
    auto env = swift.Env();
    env["AWS_ENDPOINT_URL_S3"] = endpoint;
    env["CKPT_DIR_PATH"] = uri;
    env["CKPT_S3_CLAIM"] = claim;
    env["NUM_DEVICES"] = "1";
    env["NUM_LAYERS"] = "1";
    env["MODEL"] = "transformer";
    env["CKPT_KEEP_ALL_STEPS"] = "true";
    env["NUM_SAVE_CALLS"] = "3";
    runs.push_back(std::make_unique<Process>(
        std::vector<std::string>{CkptbenchBinary(), "run", "--save-only",
                                 "--results-dir",
                                 tmp.Sub("r" + std::to_string(i))},
        env));
  }
  std::set<uint64_t> steps;
  int saves = 0;
  for (int i = 0; i < 2; ++i) {
    int rc = runs[i]->Wait(240);
    const std::string text =
        ReadFile(tmp.Sub("r" + std::to_string(i) + "/result.json"));
    ASSERT_FALSE(text.empty()) << "exit " << rc << ": " << runs[i]->Err();
    json j = json::parse(text);
    if (rc != 0) {
      EXPECT_NE(runs[i]->Err().find("could not claim a step"),
                std::string::npos)
          << runs[i]->Err();
    }
    for (const auto& r : j["rounds"]) {
      if (r["status"] != "ok") continue;
      ++saves;
      EXPECT_TRUE(steps.insert(r["step"].get<uint64_t>()).second)
          << "step " << r["step"] << " saved twice";
    }
  }
  EXPECT_GE(saves, 3);
  // Every step saved is committed, with this plan's metadata.
  for (uint64_t s : steps) {
    auto meta = swift.Aws(
        {"s3", "cp",
         uri + "/checkpoints/step-" + std::to_string(s) + "/.metadata", "-"});
    EXPECT_EQ(meta.exit_code, 0) << "step-" << s << ": " << meta.err;
  }
}

TEST_F(S3ClaimTest, TwoRunsStartedTogetherCommitDistinctStepsWithIfNoneMatch) {
  ConditionalPutProxy proxy(SwiftPort(), "test:tester", "testing");
  TwoRunsTogether(swift(), Endpoint(proxy.port()), "s3://" + bucket_ + "/two",
                  "if_none_match", tmp_);
  EXPECT_GE(proxy.granted(), 3);
}

TEST_F(S3ClaimTest, TwoRunsStartedTogetherCommitDistinctStepsByListing) {
  TwoRunsTogether(swift(), swift().endpoint(), "s3://" + bucket_ + "/two",
                  "auto", tmp_);
}

// Issue 27: a step and the sibling whose name shares its string (step-1,
// step-10) are told apart by listings, and removing step-1 (retention, or
// a failed save's clean-up: the same NodeAgent::Cleanup) with its
// unfinished uploads touches nothing of step-10's.
TEST_F(S3ClaimTest, Step1AndStep10AreToldApartByListingsAndCleanup) {
  const std::string body =
      (std::filesystem::temp_directory_path() / ("sibling-body-" + bucket_))
          .string();
  std::ofstream(body) << "bytes";
  for (const char* step : {"step-1", "step-10"}) {
    for (const char* name : {".metadata", "__0_0.distcp"}) {
      const std::string key = absl::StrCat("s/checkpoints/", step, "/", name);
      auto put = swift().Aws({"s3api", "put-object", "--bucket", bucket_,
                              "--key", key, "--body", body});
      ASSERT_EQ(put.exit_code, 0) << put.err;
    }
    auto mpu = swift().Aws(
        {"s3api", "create-multipart-upload", "--bucket", bucket_, "--key",
         absl::StrCat("s/checkpoints/", step, "/__1_0.distcp")});
    ASSERT_EQ(mpu.exit_code, 0) << mpu.err;
  }
  std::filesystem::remove(body);
  BackendOptions options;
  options.s3.endpoint = Endpoint(SwiftPort());
  options.s3.region = "us-east-1";
  const std::string dir = "s3://" + bucket_ + "/s/checkpoints";
  NodeAgent agent;
  auto listing = agent.Inspect(dir, "", false, 0, options);
  ASSERT_TRUE(listing.ok()) << listing.status();
  EXPECT_EQ(listing->steps,
            (std::vector<std::pair<uint64_t, bool>>{{1, true}, {10, true}}));
  int aborted = 0;
  ASSERT_TRUE(agent
                  .Cleanup(dir, {1}, {"__0_0.distcp", "__1_0.distcp"}, options,
                           /*abort_uploads=*/true, &aborted)
                  .ok());
  EXPECT_EQ(aborted, 1);
  auto ls = swift().Aws(
      {"s3api", "list-objects-v2", "--bucket", bucket_, "--prefix", "s/"});
  EXPECT_EQ(ls.out.find("step-1/"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("s/checkpoints/step-10/.metadata"), std::string::npos);
  EXPECT_NE(ls.out.find("s/checkpoints/step-10/__0_0.distcp"),
            std::string::npos);
  auto uploads =
      swift().Aws({"s3api", "list-multipart-uploads", "--bucket", bucket_});
  EXPECT_EQ(uploads.out.find("step-1/"), std::string::npos) << uploads.out;
  EXPECT_NE(uploads.out.find("s/checkpoints/step-10/__1_0.distcp"),
            std::string::npos)
      << uploads.out;
}

}  // namespace
}  // namespace ckpt
