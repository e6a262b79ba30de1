#include "tests/testing/health_probe.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <chrono>

namespace ckpt {

grpc::health::v1::HealthCheckResponse::ServingStatus ProbeHealth(
    int port, int attempts, std::string* error) {
  for (int attempt = 0; attempt < attempts; ++attempt) {
    // A new connection each time, as a kubelet's probe makes: one channel
    // would wait out gRPC's reconnect backoff after a refused attempt.
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    auto channel =
        grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                  grpc::InsecureChannelCredentials(), args);
    auto stub = grpc::health::v1::Health::NewStub(channel);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(1));
    grpc::health::v1::HealthCheckRequest req;
    grpc::health::v1::HealthCheckResponse rep;
    grpc::Status st = stub->Check(&ctx, req, &rep);
    if (st.ok()) return rep.status();
    if (error != nullptr) {
      *error = std::to_string(st.error_code()) + " " + st.error_message();
    }
    usleep(100000);
  }
  return grpc::health::v1::HealthCheckResponse::UNKNOWN;
}

}  // namespace ckpt
