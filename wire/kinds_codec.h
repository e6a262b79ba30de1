// The run's named choices (common/kinds.h) as they cross the wire: each as
// its ckptbench.v1 enum. Unspecified reads as the choice's default (a peer
// that left it out); a number this build does not know is refused, naming
// the field.
#ifndef CKPTBENCH_WIRE_KINDS_CODEC_H_
#define CKPTBENCH_WIRE_KINDS_CODEC_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "common/checksum.h"
#include "common/kinds.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

v1::Accelerator ToWire(Accelerator v);
v1::HostStaging ToWire(HostStaging v);
v1::CacheMode ToWire(CacheMode v);
v1::Phase ToWire(Phase v);
v1::StorageKind ToWire(StorageKind v);
v1::CacheMethod ToWire(CacheMethod v);
v1::StorageFlavour ToWire(StorageFlavour v);
v1::S3Addressing ToWire(S3Addressing v);
v1::PayloadSigning ToWire(PayloadSigning v);
v1::S3Checksum ToWire(S3Checksum v);
v1::S3Claim ToWire(S3Claim v);
v1::GcsUpload ToWire(GcsUpload v);
v1::Checksum ToWire(ChecksumKind v);

absl::StatusOr<Accelerator> FromWire(v1::Accelerator v, std::string_view field);
absl::StatusOr<HostStaging> FromWire(v1::HostStaging v, std::string_view field);
absl::StatusOr<CacheMode> FromWire(v1::CacheMode v, std::string_view field);
// Unspecified is refused: every round names its phase.
absl::StatusOr<Phase> FromWire(v1::Phase v, std::string_view field);
// Unspecified is refused: every node names its backend.
absl::StatusOr<StorageKind> FromWire(v1::StorageKind v, std::string_view field);
// Unspecified is refused: a load's node says how it kept reads cold.
absl::StatusOr<CacheMethod> FromWire(v1::CacheMethod v, std::string_view field);
absl::StatusOr<StorageFlavour> FromWire(v1::StorageFlavour v,
                                        std::string_view field);
absl::StatusOr<S3Addressing> FromWire(v1::S3Addressing v,
                                      std::string_view field);
absl::StatusOr<PayloadSigning> FromWire(v1::PayloadSigning v,
                                        std::string_view field);
absl::StatusOr<S3Checksum> FromWire(v1::S3Checksum v, std::string_view field);
absl::StatusOr<S3Claim> FromWire(v1::S3Claim v, std::string_view field);
absl::StatusOr<GcsUpload> FromWire(v1::GcsUpload v, std::string_view field);
absl::StatusOr<ChecksumKind> FromWire(v1::Checksum v, std::string_view field);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_KINDS_CODEC_H_
