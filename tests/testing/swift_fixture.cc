// CTest's fixture for the S3 tests' shared Swift
// (tests/testing/swift_server.h):
//   swift_fixture start DIR   starts Swift under DIR/swift on free loopback
//                             ports and writes its endpoint to DIR/endpoint
//   swift_fixture stop DIR    stops what start started and removes DIR
// The tests find DIR in CKPTBENCH_SWIFT_SHARED (tests/CMakeLists.txt).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "tests/testing/swift_server.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: swift_fixture start|stop DIR\n");
    return 2;
  }
  const std::string cmd = argv[1], dir = argv[2];
  namespace fs = std::filesystem;
  std::error_code ec;
  if (cmd == "stop") {
    ckpt::SwiftServer::Stop(dir + "/swift");
    fs::remove_all(dir, ec);
    return 0;
  }
  if (cmd != "start") {
    std::fprintf(stderr, "swift_fixture: '%s': expected start or stop\n",
                 argv[1]);
    return 2;
  }
  // A run killed before its cleanup leaves its files: they are not this
  // run's server (its processes, if any, hold other ports).
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "swift_fixture: %s: %s\n", dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  std::string error;
  const std::string endpoint = ckpt::SwiftServer::Start(dir + "/swift", &error);
  if (endpoint.empty()) {
    std::fprintf(stderr, "swift_fixture: %s\n", error.c_str());
    return 1;
  }
  {
    std::ofstream out(dir + "/endpoint.tmp");
    out << endpoint << "\n";
    if (!out.flush()) {
      std::fprintf(stderr, "swift_fixture: cannot write %s/endpoint\n",
                   dir.c_str());
      ckpt::SwiftServer::Stop(dir + "/swift");
      return 1;
    }
  }
  fs::rename(dir + "/endpoint.tmp", dir + "/endpoint", ec);
  if (ec) {
    ckpt::SwiftServer::Stop(dir + "/swift");
    return 1;
  }
  std::printf("shared Swift at %s\n", endpoint.c_str());
  return 0;
}
