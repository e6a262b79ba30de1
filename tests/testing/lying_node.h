// A client of the coordinator's Session stream that registers as a node
// and answers every command with a CommitReply, whatever was asked: what
// another program on the control port (or a node of another version)
// could send. Its gRPC code lives in lying_node.cc, which the TSan build
// leaves uninstrumented like coordinator/session_server.cc: the inline
// gRPC call-op code it instantiates would otherwise be the copy the test
// binary links for the server side too, reporting gRPC's own internals.
#ifndef CKPTBENCH_TESTS_TESTING_LYING_NODE_H_
#define CKPTBENCH_TESTS_TESTING_LYING_NODE_H_

#include <atomic>
#include <string>
#include <thread>

namespace ckpt {

class LyingNode {
 public:
  // Connects to 127.0.0.1:`port` and registers as node 0 named `host`.
  LyingNode(int port, const std::string& token, const std::string& host);
  // Stops answering and hangs up (the server should shut down first).
  ~LyingNode();
  LyingNode(const LyingNode&) = delete;
  LyingNode& operator=(const LyingNode&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_LYING_NODE_H_
