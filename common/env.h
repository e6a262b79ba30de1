// How code that reads environment variables is handed them: tests inject
// a lookup of their own; nullptr means the process environment.
#ifndef CKPTBENCH_COMMON_ENV_H_
#define CKPTBENCH_COMMON_ENV_H_

#include <cstdlib>
#include <functional>

namespace ckpt {

// Returns the variable's value, or nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

// `env` itself, or ::getenv when it is empty.
inline EnvLookup EnvOrProcess(EnvLookup env) {
  if (env) return env;
  return [](const char* name) { return std::getenv(name); };
}

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_ENV_H_
