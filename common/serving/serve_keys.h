// The serve workload's keys (serve.*) and its choice of run.workload.
#ifndef CKPTBENCH_COMMON_SERVING_SERVE_KEYS_H_
#define CKPTBENCH_COMMON_SERVING_SERVE_KEYS_H_

#include <vector>

#include "common/config_keys.h"

namespace ckpt {

// Appends serve's keys to `keys` and its choice to `workloads`.
void AddServeKeys(std::vector<KeyDef>* keys,
                  std::vector<WorkloadChoice>* workloads);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_SERVING_SERVE_KEYS_H_
