// The JSON of a safetensors header read as events (nlohmann's SAX parser):
// no document is built, and anything not of the header's shape stops the
// read at once, so nesting never goes deeper than a tensor's arrays. The
// shape is the reference reader's (safetensors/src/tensor.rs): an object
// of tensor name -> {"dtype", "shape", "data_offsets"} and an optional
// "__metadata__" of strings; stricter where it is silent (no other
// member, no name twice in a tensor, no empty name or control character,
// at most kMaxStDims dimensions, "__metadata__" an object, not null).
// Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_SERVING_SAFETENSORS_SAX_H_
#define CKPTBENCH_COMMON_SERVING_SAFETENSORS_SAX_H_

#include <string>
#include <string_view>

#include "common/serving/safetensors.h"

namespace ckpt {

// A string from a header as an error shows it: escaped, at most 80 bytes.
std::string StShown(std::string_view s);

// `json` (a header's N bytes, padding included) into out->tensors, in the
// header's order, and out->metadata: "" when it has the header's shape,
// else what is wrong and where in it (the caller adds the file's name).
// Offsets, sizes and names across tensors are the caller's to check.
std::string ReadStHeaderJson(std::string_view json, StHeader* out);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_SERVING_SAFETENSORS_SAX_H_
