// A workload's own block of the configuration: the values of its keys, a
// plain struct of its own folder (e.g. common/dataset/dataset_options.h),
// held by Config by its type. A workload adds its block and its keys
// without a member in Config: the shared struct names no workload.
// Thread-compatible (plain data, copied with the Config that holds it).
#ifndef CKPTBENCH_COMMON_CONFIG_BLOCKS_H_
#define CKPTBENCH_COMMON_CONFIG_BLOCKS_H_

#include <any>
#include <map>
#include <typeindex>

namespace ckpt {

class ConfigBlocks {
 public:
  // The block, made with its defaults the first time it is asked for.
  template <typename Block>
  Block& Get() {
    std::any& held = blocks_[std::type_index(typeid(Block))];
    if (!held.has_value()) held = Block{};
    return *std::any_cast<Block>(&held);
  }
  // The block as set, or its defaults where nothing set it.
  template <typename Block>
  const Block& Get() const {
    auto it = blocks_.find(std::type_index(typeid(Block)));
    if (it == blocks_.end()) {
      static const Block kDefaults{};
      return kDefaults;
    }
    return *std::any_cast<Block>(&it->second);
  }

 private:
  std::map<std::type_index, std::any> blocks_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CONFIG_BLOCKS_H_
