// Environment variables ckptbench reads besides the configuration keys'
// aliases (those are in ConfigKeys()): node identity from the scheduler and
// the cloud SDKs' standard credential variables. `ckptbench keys --json`
// lists them, so deployment manifests can be checked against the binary.
// Static data; thread-safe.
#ifndef CKPTBENCH_COMMON_ENV_VARS_H_
#define CKPTBENCH_COMMON_ENV_VARS_H_

#include <string>
#include <vector>

namespace ckpt {

struct EnvVarDef {
  std::string name;
  std::string meaning;
};

const std::vector<EnvVarDef>& OtherEnvVars();

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_ENV_VARS_H_
