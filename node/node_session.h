// The node agent's connection to the coordinator: dials (retrying with
// jittered backoff until the coordinator is up or connect_timeout passes),
// registers, then serves the coordinator's commands on the Session stream
// with a NodeService, sending heartbeats meanwhile. Returns when the
// coordinator shuts the node down or is lost (then transfers are aborted).
#ifndef CKPTBENCH_NODE_NODE_SESSION_H_
#define CKPTBENCH_NODE_NODE_SESSION_H_

#include <grpcpp/security/credentials.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "common/protocol_version.h"
#include "node/round/node_workload.h"

namespace ckpt {

struct NodeSessionOptions {
  std::string coordinator;  // HOST:PORT
  int node_index = 0;
  std::string host;
  std::string token;  // secret
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  std::string tls_server_name;  // "" = the coordinator's host name
  double connect_timeout = 120;
  int protocol_version = kProtocolVersion;  // tests may claim another
  // The workloads this node runs besides the checkpoint (tests add theirs).
  NodeWorkloads workloads;
};

// How the session ended, one code per exit status (common/exit_code.h):
// OK: the coordinator ended the run successfully (0). Aborted: it ended
// the run as failed (1). FailedPrecondition: registration refused, or the
// coordinator ended the run for input to fix (2). DeadlineExceeded: could
// not reach the coordinator within connect_timeout (1). Unavailable: lost
// the coordinator after registering, or it ended the run as interrupted
// or short of a node (3).
absl::Status RunNodeSession(const NodeSessionOptions& options);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_NODE_SESSION_H_
