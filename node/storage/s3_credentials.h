// Where S3 credentials come from, in the order AWS SDKs look:
//  1. environment: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
//  AWS_SESSION_TOKEN
//  2. shared credentials file: AWS_SHARED_CREDENTIALS_FILE or
//     ~/.aws/credentials, profile AWS_PROFILE
//  3. web identity (EKS IRSA): AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN,
//     exchanged with STS AssumeRoleWithWebIdentity (AWS_ENDPOINT_URL_STS)
//  4. container endpoint (EKS Pod Identity, ECS):
//     AWS_CONTAINER_CREDENTIALS_FULL_URI (+ AWS_CONTAINER_AUTHORIZATION_TOKEN
//     _FILE) or AWS_CONTAINER_CREDENTIALS_RELATIVE_URI
//  5. EC2 IMDSv2 (AWS_EC2_METADATA_SERVICE_ENDPOINT), unless
//     AWS_EC2_METADATA_DISABLED=true
// With a Kubernetes Secret named (s3.keys_secret), only the environment's
// static keys count: without them Get() fails naming the Secret (a pod
// whose optional Secret is missing), never falling through to a node's
// instance role.
// Temporary credentials are refreshed 5 minutes before they expire.
// Secrets never appear in errors. Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_S3_CREDENTIALS_H_
#define CKPTBENCH_NODE_STORAGE_S3_CREDENTIALS_H_

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/env.h"
#include "node/storage/s3_sigv4.h"

namespace ckpt {

class AwsCredentialChain {
 public:
  // `env` defaults to ::getenv (tests inject their own). `keys_secret`:
  // s3.keys_secret ("": every source above).
  explicit AwsCredentialChain(EnvLookup env = nullptr,
                              std::string keys_secret = "");

  // Cached; looked up again when expiring within 5 minutes. The error says
  // which sources were tried.
  absl::StatusOr<AwsCredentials> Get();

 private:
  absl::StatusOr<std::optional<AwsCredentials>> FromEnvironment();
  absl::StatusOr<std::optional<AwsCredentials>> FromSharedFile();
  absl::StatusOr<std::optional<AwsCredentials>> FromWebIdentity();
  absl::StatusOr<std::optional<AwsCredentials>> FromContainer();
  absl::StatusOr<std::optional<AwsCredentials>> FromInstanceMetadata();

  EnvLookup env_;
  const std::string keys_secret_;
  std::mutex mu_;
  std::optional<AwsCredentials> cached_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_S3_CREDENTIALS_H_
