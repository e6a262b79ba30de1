// A Swift + s3api server for S3 tests. Credentials test:tester / testing.
//
// Under CTest every S3 test shares one server, started by the fixture test
// SwiftShared.Start (tests/testing/swift_fixture.cc) and stopped by
// SwiftShared.Stop, which CTest runs even when tests fail: the test's
// environment names the fixture's directory in CKPTBENCH_SWIFT_SHARED. A
// start costs about 10 s, which every S3 test used to pay. Each test works
// in buckets of its own (UniqueBucket), so sharing the server shares no
// objects. A test binary run without that variable starts a server of its
// own (tests/servers/swift_s3.sh, on free loopback ports under a temp dir)
// and stops it when it exits.
#ifndef CKPTBENCH_TESTS_TESTING_SWIFT_SERVER_H_
#define CKPTBENCH_TESTS_TESTING_SWIFT_SERVER_H_

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/testing/http_wire.h"
#include "tests/testing/source_dir.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {

class SwiftServer {
 public:
  // Starts on first use (or finds the shared one); "" endpoint if it could
  // not (error()).
  static SwiftServer& Get() {
    static SwiftServer* s = new SwiftServer();
    return *s;
  }

  // A bucket name no other test process of the run uses, even one with
  // the same pid (pids wrap at 32768 here): `prefix`, a random tag drawn
  // once per process, then a count. S3's rules: lower case and digits.
  static std::string UniqueBucket(const std::string& prefix) {
    static const std::string tag = [] {
      std::random_device rd;
      char buf[16];
      snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(rd()));
      return std::string(buf);
    }();
    static int n = 0;
    return prefix + tag + "x" + std::to_string(n++);
  }

  // Starts a server under `dir` on free loopback ports: its endpoint, or
  // "" and the reason in `error`. A start that fails (a port taken after
  // all) is tried on other ports.
  static std::string Start(const std::string& dir, std::string* error) {
    // The proxy, three storage servers and memcached take five ports.
    for (int attempt = 0; attempt < 3; ++attempt) {
      int port = FreePorts(5);
      auto r = RunProcess(
          {"/bin/bash", Script(), "start", dir, std::to_string(port)}, {});
      if (r.exit_code == 0 && r.out.find("ready") != std::string::npos) {
        error->clear();
        return "http://127.0.0.1:" + std::to_string(port);
      }
      *error = "swift did not start: " + r.out + r.err;
    }
    return "";
  }
  // Stops what Start started under `dir`.
  static void Stop(const std::string& dir) {
    RunProcess({"/bin/bash", Script(), "stop", dir}, {});
  }
  const std::string& endpoint() const { return endpoint_; }
  const std::string& error() const { return error_; }

  // The last `lines` lines of each of the server's logs: its warnings and
  // errors (tests/servers/swift_s3.sh runs it --verbose at log_level
  // WARNING), e.g. a lookup of a container that failed, which an object PUT
  // answers as 404 NoSuchBucket. A failed S3 test prints them; on the
  // shared server, other tests' lines are among them. A byte that is not
  // printable ASCII is shown as '?', and a line is cut at 512 bytes.
  std::string LogTail(size_t lines = 25) const {
    std::string out;
    for (const char* server : {"proxy", "container", "account", "object"}) {
      const std::string file = log_dir_ + "/" + server + ".log";
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        out += "--- " + file + ": cannot be read\n";
        continue;
      }
      std::vector<std::string> tail;
      for (std::string line; std::getline(in, line);) {
        if (line.size() > 512) line.resize(512);
        for (char& c : line) {
          if (c < 0x20 || c > 0x7e) c = '?';
        }
        tail.push_back(std::move(line));
        if (tail.size() > lines) tail.erase(tail.begin());
      }
      out += "--- " + file + ", its last lines:\n";
      for (const std::string& line : tail) out += line + "\n";
    }
    return out;
  }

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

  // Makes a bucket and waits until it takes a write (an object "ready");
  // a busy Swift answers 503 for a while, so this retries. Empty on
  // success, else the error. Through Swift's own API with curl (an S3
  // bucket is a container of the account test:tester logs in to): the AWS
  // CLI takes about 2 s to start, and every test paid that twice here.
  //
  // It makes the bucket's "+segments" container too, where s3api keeps
  // multipart parts. s3api makes it on a bucket's first multipart upload,
  // after looking it up (multi_upload.py, UploadsController.POST), and the
  // proxy caches a lookup's 404 (base.py, set_info_cache) until a PUT of
  // the container clears it, or for 6 s. Ranks starting uploads in a fresh
  // bucket at once race: one's lookup can be answered 404 before another's
  // PUT makes the container and cache it after that PUT cleared the cache;
  // until its own PUT clears it again, another rank's object PUT (a part)
  // finds no container and is answered 404 NoSuchBucket (obj.py, PUT), as
  // S3Test.MultinodeRunAgainstS3 once was in CI. With the container made
  // first, every lookup finds it. S3 and MinIO have no such container.
  std::string MakeBucket(const std::string& bucket) const {
    std::string err;
    for (int attempt = 0; attempt < 6; ++attempt) {
      if (attempt > 0) usleep(1000000);
      auto auth = RunProcess(
          {"/usr/bin/curl", "-sS", "-f", "--connect-timeout", "5", "--max-time",
           "30", "-o", "/dev/null", "-D", "-", "-H", "X-Auth-User: test:tester",
           "-H", "X-Auth-Key: testing", endpoint_ + "/auth/v1.0"},
          {});
      const std::string token = HeaderValue(auth.out, "x-auth-token");
      const std::string url = HeaderValue(auth.out, "x-storage-url");
      if (auth.exit_code != 0 || token.empty() || url.empty()) {
        err = "swift auth: " + auth.err;  // not the headers: a token
        continue;
      }
      bool made = true;
      for (const std::string& path :
           {bucket, bucket + "+segments", bucket + "/ready"}) {
        auto put = RunProcess(
            {"/usr/bin/curl", "-sS", "-f", "--connect-timeout", "5",
             "--max-time", "30", "-o", "/dev/null", "-X", "PUT", "-H",
             "X-Auth-Token: " + token, "--data-binary", "", url + "/" + path},
            {});
        if (put.exit_code != 0) {
          err = "PUT " + path + ": " + put.err;
          made = false;
          break;
        }
      }
      if (made) return "";
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
  static std::string Script() {
    return SourceDir() + "/tests/servers/swift_s3.sh";
  }
  SwiftServer() {
    if (const char* shared = std::getenv("CKPTBENCH_SWIFT_SHARED")) {
      const std::string file = std::string(shared) + "/endpoint";
      std::ifstream in(file);
      log_dir_ = std::string(shared) + "/swift/log";
      if (!(in >> endpoint_) || endpoint_.rfind("http://127.0.0.1:", 0) != 0) {
        endpoint_.clear();
        error_ = "no shared Swift: " + file +
                 " holds no endpoint (see the output of the CTest fixture "
                 "SwiftShared.Start)";
      }
    } else {
      endpoint_ = Start(dir_.Sub("swift"), &error_);
      log_dir_ = dir_.Sub("swift/log");
      own_ = !endpoint_.empty();
    }
    // The shared server is SwiftShared.Stop's to stop; HOME is ours.
    std::atexit([] {
      SwiftServer& s = Get();
      if (s.own_) Stop(s.dir_.Sub("swift"));
      std::error_code ec;
      std::filesystem::remove_all(s.dir_.path(), ec);
    });
  }
  TempDir dir_;
  std::string endpoint_;
  std::string error_;
  std::string log_dir_;
  bool own_ = false;  // started by this process
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_SWIFT_SERVER_H_
