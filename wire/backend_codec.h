// The backend settings (common/config.h BackendOptions: storage.flavour,
// s3.*, gcs.*) as they cross the wire: ckptbench.v1.BackendOptions, typed
// field by field. What the node receives is checked whole through the key
// table before any backend sees it; a field left out reads as its key's
// default (TLS is verified unless a peer says otherwise).
#ifndef CKPTBENCH_WIRE_BACKEND_CODEC_H_
#define CKPTBENCH_WIRE_BACKEND_CODEC_H_

#include "absl/status/statusor.h"
#include "common/config.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

v1::BackendOptions ToWire(const BackendOptions& options);
// InvalidArgument naming the key for a number this build does not know or
// a value its key refuses.
absl::StatusOr<BackendOptions> FromWire(const v1::BackendOptions& wire);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_BACKEND_CODEC_H_
