// The S3 tests' fixture: a bucket of each test's own on the shared Swift
// with s3api (tests/testing/swift_server.h), the environment a ckptbench
// run against it needs, and a temporary directory.
#ifndef CKPTBENCH_TESTS_INTEGRATION_S3_FIXTURE_H_
#define CKPTBENCH_TESTS_INTEGRATION_S3_FIXTURE_H_

#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "tests/testing/cluster.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/swift_server.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {

class S3Test : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(swift().endpoint().empty()) << swift().error();
    bucket_ = SwiftServer::UniqueBucket("ckpt");
    std::string err = swift().MakeBucket(bucket_);
    ASSERT_TRUE(err.empty()) << err;
  }
  // What the server logged, when the test failed (SwiftServer::LogTail).
  void TearDown() override {
    if (HasFailure()) std::cerr << swift().LogTail();
  }
  SwiftServer& swift() { return SwiftServer::Get(); }
  Env S3Env(Env extra = {}) {
    Env env = swift().Env();
    env["NUM_DEVICES"] = "2";
    env["NUM_LAYERS"] = "2";  // 2 x ~84 MiB objects: multipart at 8 MiB parts
    for (auto& [k, v] : extra) env[k] = v;
    return env;
  }
  ProcessResult Ckpt(std::vector<std::string> args, const Env& env) {
    return RunCkptbench(std::move(args), env);
  }
  std::string Uri(const std::string& prefix) {
    return "s3://" + bucket_ + "/" + prefix;
  }
  std::string bucket_;
  TempDir tmp_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_INTEGRATION_S3_FIXTURE_H_
