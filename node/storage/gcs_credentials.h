// Where GCS access tokens come from, in the order Google's client libraries
// look:
//  1. STORAGE_EMULATOR_HOST: no authentication (emulators, test servers)
//  2. GOOGLE_OAUTH_ACCESS_TOKEN: a token used as is (never refreshed)
//  3. GOOGLE_APPLICATION_CREDENTIALS: a service-account key file, whose
//     JWT (RS256) is exchanged for a token at its token_uri, or an
//     authorized_user file (refresh-token grant)
//  4. gcloud's application-default file ($CLOUDSDK_CONFIG or
//     ~/.config/gcloud/application_default_credentials.json)
//  5. the metadata server (GKE workload identity, GCE): GCE_METADATA_HOST
//     or metadata.google.internal; off with NO_GCE_CHECK=true or
//     METADATA_SERVER_DETECTION=none
// Tokens are refreshed before they expire (5 minutes, or half their life
// when shorter). Tokens and keys never appear in errors. Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_GCS_CREDENTIALS_H_
#define CKPTBENCH_NODE_STORAGE_GCS_CREDENTIALS_H_

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/env.h"
#include "node/storage/http_client.h"

namespace ckpt {

struct GcsToken {
  std::string access_token;  // "" = send no Authorization header
  std::string source;        // "emulator", "environment", "service_account"...
  // When to fetch a new one; max() for tokens that are not refreshed.
  std::chrono::system_clock::time_point refresh_at =
      std::chrono::system_clock::time_point::max();
};

class GcsCredentials {
 public:
  // `env` defaults to ::getenv (tests inject their own).
  explicit GcsCredentials(EnvLookup env = nullptr);

  // The cached token, or a new one when it is due. The error names the
  // sources tried and why each failed.
  absl::StatusOr<GcsToken> Get();

  static constexpr char kScope[] =
      "https://www.googleapis.com/auth/devstorage.read_write";

 private:
  absl::StatusOr<GcsToken> Fetch();
  absl::StatusOr<GcsToken> FromKeyFile(const std::string& path);
  // The key file's JSON as read from `path` (named in errors).
  absl::StatusOr<GcsToken> FromKeyText(const std::string& path,
                                       const std::string& text);
  absl::StatusOr<GcsToken> FromMetadataServer();

  EnvLookup env_;
  std::mutex mu_;
  std::optional<GcsToken> cached_;
};

// A token endpoint's reply ({access_token, expires_in}) from `where`;
// errors carry the server's error code and description, never the
// request's secrets. Exposed for tests and fuzzing.
absl::StatusOr<GcsToken> ParseTokenReply(const HttpResponse& rep,
                                         const std::string& where,
                                         const std::string& source);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_GCS_CREDENTIALS_H_
