// The coordinator's gRPC server: accepts node Session streams, enforces the
// registration rules (protocol version, token, index in range, no
// duplicates), keeps a RemoteNode per registered node, and serves the gRPC
// health service on the same port. Streams are served by gRPC's callback
// API: no thread per node; a reply completes its call on the gRPC thread
// that read it. One watchdog thread checks every node's silence. Thread-safe.
#ifndef CKPTBENCH_COORDINATOR_SESSION_SERVER_H_
#define CKPTBENCH_COORDINATOR_SESSION_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "common/grpc_tls.h"
#include "coordinator/remote_node.h"

namespace ckpt {

struct SessionServerOptions {
  std::string listen;  // HOST:PORT (port 0 = any free port)
  ServerTls tls;
  int num_nodes = 1;
  std::string token;  // "" = none required
  double node_timeout = 15;
  double heartbeat_interval = 1;
  std::string run_id;
};

class SessionServer {
 public:
  static absl::StatusOr<std::unique_ptr<SessionServer>> Start(
      const SessionServerOptions& options);
  ~SessionServer();
  SessionServer(const SessionServer&) = delete;
  SessionServer& operator=(const SessionServer&) = delete;

  int port() const { return port_; }

  // Waits for nodes 0..num_nodes-1; on timeout fails listing the indexes
  // that never arrived. After it returns OK, late or returning nodes are
  // refused.
  absl::StatusOr<std::vector<RemoteNode*>> WaitForNodes(double timeout_seconds);

  // Makes a WaitForNodes in progress return Cancelled with `reason`.
  void CancelWait(const std::string& reason);

  // Tells every connected node the run is over and the exit status it
  // ended with, then stops serving.
  void Shutdown(ExitCode end, const std::string& reason);

  // From a stream's first message: registers the node (its replies go to
  // `writer`) and fills `reply`; null, with `reply` saying why, if refused.
  RemoteNode* Register(const v1::RegisterRequest& reg, const std::string& peer,
                       SessionWriter* writer, v1::CoordinatorMessage* reply);
  // A stream's reactor was made, and is done (its last touch of this
  // server: the destructor waits for every one).
  void StreamStarted();
  void StreamEnded(bool registered);

 private:
  explicit SessionServer(SessionServerOptions options);
  std::string Validate(const v1::RegisterRequest& reg);
  void Watchdog();

  const SessionServerOptions options_;
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int, std::unique_ptr<RemoteNode>> nodes_;
  std::vector<std::unique_ptr<RemoteNode>> retired_;  // replaced before start
  bool started_ = false;  // WaitForNodes succeeded: membership is fixed
  std::string cancelled_;
  int active_streams_ = 0;  // registered nodes' streams not yet ended
  int live_reactors_ = 0;
  bool stopping_ = false;
  std::thread watchdog_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_SESSION_SERVER_H_
