// Where S3 credentials come from, in the order AWS SDKs look: explicit
// environment (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
// AWS_SESSION_TOKEN), then the shared credentials file
// (AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials, profile AWS_PROFILE).
// Web identity, the container endpoint and IMDSv2 come next (not yet).
// Secrets never appear in errors. Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_S3_CREDENTIALS_H_
#define CKPTBENCH_NODE_STORAGE_S3_CREDENTIALS_H_

#include <functional>
#include <mutex>
#include <optional>

#include "absl/status/statusor.h"
#include "node/storage/s3_sigv4.h"

namespace ckpt {

using EnvLookup = std::function<const char*(const char*)>;

class AwsCredentialChain {
 public:
  // `env` defaults to ::getenv (tests inject their own).
  explicit AwsCredentialChain(EnvLookup env = nullptr);

  // Cached; looked up again when expiring within 5 minutes. The error says
  // which sources were tried.
  absl::StatusOr<AwsCredentials> Get();

 private:
  absl::StatusOr<std::optional<AwsCredentials>> FromEnvironment();
  absl::StatusOr<std::optional<AwsCredentials>> FromSharedFile();

  EnvLookup env_;
  std::mutex mu_;
  std::optional<AwsCredentials> cached_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_S3_CREDENTIALS_H_
