// A Swift + s3api server for the tests of one binary: started once (on a
// free loopback port, under a temp dir) by tests/servers/swift_s3.sh and
// stopped when the test binary exits. Credentials test:tester / testing.
#ifndef CKPTBENCH_TESTS_TESTING_SWIFT_SERVER_H_
#define CKPTBENCH_TESTS_TESTING_SWIFT_SERVER_H_

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {

class SwiftServer {
 public:
  // Starts on first use; "" endpoint if it could not start (error()).
  static SwiftServer& Get() {
    static SwiftServer* s = new SwiftServer();
    return *s;
  }
  const std::string& endpoint() const { return endpoint_; }
  const std::string& error() const { return error_; }

  // Env for ckptbench and the AWS CLI talking to this server. HOME points at
  // an empty dir so no real ~/.aws is read; instance metadata is disabled.
  std::map<std::string, std::string> Env() const {
    return {{"AWS_ACCESS_KEY_ID", "test:tester"},
            {"AWS_SECRET_ACCESS_KEY", "testing"},
            {"AWS_ENDPOINT_URL_S3", endpoint_},
            {"AWS_DEFAULT_REGION", "us-east-1"},
            {"AWS_EC2_METADATA_DISABLED", "true"},
            {"HOME", dir_.Sub("home")},
            // The AWS CLI's own patience with a busy test server.
            {"AWS_RETRY_MODE", "standard"},
            {"AWS_MAX_ATTEMPTS", "10"}};
  }

  // Makes a bucket and waits until it takes a write; a busy Swift answers
  // 503 for a while, so this retries. Empty on success, else the error.
  std::string MakeBucket(const std::string& bucket) const {
    std::string err;
    for (int attempt = 0; attempt < 6; ++attempt) {
      if (attempt > 0) usleep(1000000);
      auto mb = Aws({"s3", "mb", "s3://" + bucket});
      if (mb.exit_code != 0 &&
          mb.err.find("BucketAlreadyOwnedByYou") == std::string::npos) {
        err = mb.err;
        continue;
      }
      auto ready =
          Aws({"s3api", "put-object", "--bucket", bucket, "--key", "ready"});
      if (ready.exit_code == 0) return "";
      err = ready.err;
    }
    return err.empty() ? "unknown error" : err;
  }

  // Runs the AWS CLI (Debian's /usr/bin/aws) against the server.
  ProcessResult Aws(std::vector<std::string> args) const {
    std::vector<std::string> argv = {"/usr/bin/aws", "--endpoint-url",
                                     endpoint_};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv, Env());
  }

 private:
  SwiftServer() {
    std::string script =
        std::string(CKPTBENCH_SOURCE_DIR) + "/tests/servers/swift_s3.sh";
    // The proxy, three storage servers and memcached take five ports.
    // A start that fails (a port taken after all) is tried on others.
    int port = -1;
    for (int attempt = 0; attempt < 3; ++attempt) {
      port = FreePorts(5);
      auto r = RunProcess({"/bin/bash", script, "start", dir_.Sub("swift"),
                           std::to_string(port)},
                          {});
      if (r.exit_code == 0 && r.out.find("ready") != std::string::npos) {
        error_.clear();
        break;
      }
      error_ = "swift did not start: " + r.out + r.err;
    }
    if (!error_.empty()) return;
    endpoint_ = "http://127.0.0.1:" + std::to_string(port);
    std::atexit([] {
      SwiftServer& s = Get();
      std::string script =
          std::string(CKPTBENCH_SOURCE_DIR) + "/tests/servers/swift_s3.sh";
      RunProcess({"/bin/bash", script, "stop", s.dir_.Sub("swift")}, {});
      std::error_code ec;
      std::filesystem::remove_all(s.dir_.path(), ec);
    });
  }
  TempDir dir_;
  std::string endpoint_;
  std::string error_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_SWIFT_SERVER_H_
