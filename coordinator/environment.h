// The host facts recorded with every result: host name, kernel, CPUs,
// memory. Storage facts come from the node's prepare replies.
#ifndef CKPTBENCH_COORDINATOR_ENVIRONMENT_H_
#define CKPTBENCH_COORDINATOR_ENVIRONMENT_H_

#include <string>

#include "coordinator/results.h"

namespace ckpt {

EnvironmentInfo ProbeHost();
std::string HostName();
// Current UTC time as 2026-11-22T03:04:05Z.
std::string UtcNowIso8601();

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_ENVIRONMENT_H_
