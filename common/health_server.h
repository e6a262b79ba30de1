// A plaintext gRPC health service on a port of its own (grpc.health.v1,
// overall status SERVING while it runs): what Kubernetes' grpc probes ask,
// which speak no TLS. The node serves it on control.node_health_port, the
// coordinator on control.coordinator_health_port (its control port's
// health service is behind TLS when tls.* is set).
#ifndef CKPTBENCH_COMMON_HEALTH_SERVER_H_
#define CKPTBENCH_COMMON_HEALTH_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace ckpt {

class HealthServer {
 public:
  // Serves on 0.0.0.0:`port`; `key` names the setting in errors.
  static absl::StatusOr<std::unique_ptr<HealthServer>> Start(
      int port, const std::string& key);
  ~HealthServer();
  HealthServer(const HealthServer&) = delete;
  HealthServer& operator=(const HealthServer&) = delete;

 private:
  HealthServer() = default;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<grpc::ServerCompletionQueue> cq_;
  std::thread poller_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_HEALTH_SERVER_H_
