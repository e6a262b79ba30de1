// A coordinator and node processes on loopback for multinode tests: every
// process runs the real ckptbench binary; storage is a temp directory.
#ifndef CKPTBENCH_TESTS_TESTING_CLUSTER_H_
#define CKPTBENCH_TESTS_TESTING_CLUSTER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {

using Env = std::map<std::string, std::string>;

class Cluster {
 public:
  Cluster()
      : port_(FreePort()), address_("127.0.0.1:" + std::to_string(port_)) {}

  const std::string& address() const { return address_; }
  int port() const { return port_; }
  TempDir& tmp() { return tmp_; }
  std::string ResultsDir() const { return tmp_.Sub("results"); }
  std::string ResultPath() const { return tmp_.Sub("results/result.json"); }

  // Coordinator with small, fast defaults; `extra` overrides them.
  std::unique_ptr<Process> StartCoordinator(
      const Env& extra, std::vector<std::string> args = {}) {
    Env env = {{"CKPT_DIR_PATH", tmp_.Sub("ckpt")},
               {"CKPT_CACHE_MODE", "fadvise"},
               {"NUM_DEVICES", "2"},
               {"NUM_LAYERS", "2"},
               {"NUM_SAVE_CALLS", "1"},
               {"NUM_LOAD_CALLS", "1"},
               {"CKPT_LISTEN", address_},
               {"CKPT_REGISTER_TIMEOUT", "30"},
               {"CKPT_NODE_TIMEOUT", "5"},
               {"CKPT_HEARTBEAT_INTERVAL", "0.5"},
               {"CKPT_PROGRESS_INTERVAL", "0.5"}};
    for (const auto& [k, v] : extra) env[k] = v;
    std::vector<std::string> argv = {CkptbenchBinary(), "coordinator",
                                     "--results-dir", ResultsDir()};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<Process>(argv, env);
  }

  std::unique_ptr<Process> StartNode(int index, const Env& extra = {},
                                     std::vector<std::string> args = {}) {
    Env env = {{"CKPT_COORDINATOR", address_}, {"CKPT_CONNECT_TIMEOUT", "30"}};
    for (const auto& [k, v] : extra) env[k] = v;
    std::vector<std::string> argv = {CkptbenchBinary(), "node", "--node-index",
                                     std::to_string(index)};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<Process>(argv, env);
  }

 private:
  TempDir tmp_;
  int port_;
  std::string address_;
};

// Every node's stderr, for a failure's message: a node that ended early
// says why there (a sanitizer's report, which ends it with 66, included),
// where the coordinator sees only a stream that went away.
inline std::string NodesErr(
    const std::vector<std::unique_ptr<Process>>& nodes) {
  std::string out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    out += "\n--- node " + std::to_string(i) + ", stderr:\n" + nodes[i]->Err();
  }
  return out;
}

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_CLUSTER_H_
