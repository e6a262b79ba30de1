// Asks a gRPC health service over plaintext, as a kubelet's grpc probe
// does (grpc.health.v1.Health/Check, service "", a new connection each
// time), retrying for ~10 s.
#ifndef CKPTBENCH_TESTS_TESTING_HEALTH_PROBE_H_
#define CKPTBENCH_TESTS_TESTING_HEALTH_PROBE_H_

#include <string>

#include "testing/proto/grpc/health/v1/health.grpc.pb.h"

namespace ckpt {

// The status at 127.0.0.1:`port`; UNKNOWN, with the last error in `error`
// (if given), when no answer came within `attempts` tries 0.1 s apart.
grpc::health::v1::HealthCheckResponse::ServingStatus ProbeHealth(
    int port, int attempts = 100, std::string* error = nullptr);

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_HEALTH_PROBE_H_
