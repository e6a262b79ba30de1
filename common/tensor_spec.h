// A tensor as a model preset describes it (common/model_presets.h): its
// name, dtype and shape. Shared by every workload that sizes a model (the
// checkpoint's plan holds its tensors: common/checkpoint/checkpoint_plan.h).
// Plain data.
#ifndef CKPTBENCH_COMMON_TENSOR_SPEC_H_
#define CKPTBENCH_COMMON_TENSOR_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

struct TensorSpec {
  std::string name;
  std::string dtype;  // "fp32", "bf16", ...
  int dtype_bytes = 4;
  std::vector<uint64_t> shape;
  uint64_t Elements() const {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
  }
  uint64_t Bytes() const {
    return Elements() * static_cast<uint64_t>(dtype_bytes);
  }
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_TENSOR_SPEC_H_
