// CTest's fixture for the S3 tests' shared Swift
// (tests/testing/swift_server.h):
//   swift_fixture start DIR   starts Swift under DIR/swift on free loopback
//                             ports and writes its endpoint to DIR/endpoint
//   swift_fixture stop DIR    stops what start started and removes DIR
// The tests find DIR in CKPTBENCH_SWIFT_SHARED (tests/CMakeLists.txt).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "tests/testing/swift_server.h"

namespace {

// The command line of process `pid`, "" if there is none.
std::string CommandLine(long pid) {
  std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline",
                    std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(cmd)),
                     std::istreambuf_iterator<char>());
}

// Ends what a run killed before its cleanup left running under `dir`: each
// pid its pid files name whose command line names `dir`, so never another
// program's process where a pid was reused. SIGTERM, then SIGKILL for one
// still there after 5 s (a server caught in its start-up ignored SIGTERM
// once here).
void StopLeftovers(const std::string& dir) {
  std::vector<long> ours;
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator(dir + "/swift/run", ec)) {
    if (e.path().extension() != ".pid") continue;
    std::ifstream in(e.path());
    long pid = 0;
    if (!(in >> pid) || pid <= 1) continue;
    if (CommandLine(pid).find(dir) == std::string::npos) continue;
    ours.push_back(pid);
    kill(static_cast<pid_t>(pid), SIGTERM);
  }
  for (int waited_ms = 0; !ours.empty(); waited_ms += 100) {
    std::vector<long> left;
    for (long pid : ours) {
      if (CommandLine(pid).find(dir) != std::string::npos) left.push_back(pid);
    }
    ours.swap(left);
    if (ours.empty()) break;
    if (waited_ms >= 5000) {
      for (long pid : ours) kill(static_cast<pid_t>(pid), SIGKILL);
      break;
    }
    usleep(100 * 1000);
  }
}

}  // namespace

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
  // A run killed before its cleanup left its server: end it (only what
  // its pid files name under DIR), then start afresh. Two CTest runs in
  // one build directory at once would end each other's: use two.
  StopLeftovers(dir);
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
