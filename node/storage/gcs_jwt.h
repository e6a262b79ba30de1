// JSON Web Tokens signed with RS256 (RSASSA-PKCS1-v1_5 with SHA-256,
// OpenSSL), as Google's service-account JWT bearer flow needs them.
#ifndef CKPTBENCH_NODE_STORAGE_GCS_JWT_H_
#define CKPTBENCH_NODE_STORAGE_GCS_JWT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace ckpt {

// "<b64url(header)>.<b64url(claims)>.<b64url(signature)>", the signature
// made over the first two parts with `private_key_pem` (PKCS#8 or PKCS#1
// PEM, as in a service-account key file). The key never appears in errors.
absl::StatusOr<std::string> SignJwtRs256(std::string_view header_json,
                                         std::string_view claims_json,
                                         const std::string& private_key_pem);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_GCS_JWT_H_
