// gRPC credentials for the control channel from ControlOptions: insecure
// when no certificate is configured, TLS with a server certificate, mutual
// TLS when the coordinator has a CA (client certificates required and
// verified). Errors name the key and the file. Thread-safe.
#ifndef CKPTBENCH_COMMON_GRPC_TLS_H_
#define CKPTBENCH_COMMON_GRPC_TLS_H_

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "absl/status/statusor.h"
#include "common/config.h"

namespace ckpt {

struct ServerTls {
  std::shared_ptr<grpc::ServerCredentials> credentials;  // null: plaintext
  bool tls = false;
  bool mutual = false;
};

absl::StatusOr<ServerTls> MakeServerCredentials(const ControlOptions& c);

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
MakeChannelCredentials(const ControlOptions& c);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_GRPC_TLS_H_
