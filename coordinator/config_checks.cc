#include "coordinator/config_checks.h"

namespace ckpt {

absl::Status ValidateConfig(const Config& config, bool need_storage,
                            const WorkloadRegistry& registry) {
  if (auto s = CheckStorageLocations(config); !s.ok()) return s;
  if (auto s = registry.CheckKeys(config, need_storage); !s.ok()) return s;
  return CheckSharedKeys(config);
}

}  // namespace ckpt
