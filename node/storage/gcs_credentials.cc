#include "node/storage/gcs_credentials.h"

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/config_keys.h"
#include "common/files.h"
#include "common/secrets.h"
#include "nlohmann/json.hpp"
#include "node/storage/gcs_client.h"
#include "node/storage/gcs_jwt.h"
#include "node/storage/http_client.h"
#include "node/storage/http_retry.h"
#include "node/storage/http_text.h"

namespace ckpt {
namespace {

using Clock = std::chrono::system_clock;

constexpr char kDefaultTokenUri[] = "https://oauth2.googleapis.com/token";
// A service-account key or an authorized_user file is 2-3 KiB of JSON;
// 1 MiB bounds what a wrong path (a FIFO, /dev/zero, a log) can cost.
constexpr uint64_t kMaxKeyFileBytes = 1 << 20;

// NO_GCE_CHECK=true (any boolean spelling of the configuration's) or
// METADATA_SERVER_DETECTION=none turn the metadata server off.
bool MetadataServerOff(const EnvLookup& env) {
  bool no_check = false;
  const char* v = env("NO_GCE_CHECK");
  if (v != nullptr && keydefs::ParseBool(v, &no_check).ok() && no_check)
    return true;
  const char* detection = env("METADATA_SERVER_DETECTION");
  return detection != nullptr && absl::EqualsIgnoreCase(detection, "none");
}

HttpResponse PostForm(const std::string& url, const std::string& form) {
  return FetchOnce(HttpMethod::kPost, url,
                   {{"Content-Type", "application/x-www-form-urlencoded"}},
                   form);
}

std::string Field(const nlohmann::json& j, const char* name) {
  return j.contains(name) && j[name].is_string() ? j[name].get<std::string>()
                                                 : std::string();
}

}  // namespace

// A token reply ({access_token, expires_in}) from `where`; errors carry the
// server's error code and description, never the request's secrets.
absl::StatusOr<GcsToken> ParseTokenReply(const HttpResponse& rep,
                                         const std::string& where,
                                         const std::string& source) {
  if (rep.status == 0) {
    return absl::UnavailableError(
        absl::StrCat(where, ": ", FailureDetail(rep, where, "")));
  }
  nlohmann::json j = nlohmann::json::parse(rep.body, nullptr, false);
  if (rep.status != 200) {
    std::string detail;
    if (j.is_object() && j.contains("error")) {
      const auto& e = j["error"];
      detail = e.is_string() ? e.get<std::string>() : JsonString(e, "message");
      if (j.contains("error_description") &&
          j["error_description"].is_string()) {
        absl::StrAppend(&detail, ": ",
                        j["error_description"].get<std::string>());
      }
    }
    // The description may echo what was sent (a refresh token, the JWT).
    return absl::UnauthenticatedError(ScrubSecrets(
        absl::StrCat(where, " refused the ", source, " credentials: HTTP ",
                     rep.status, detail.empty() ? "" : " ", detail)));
  }
  if (!j.is_object() || !j.contains("access_token") ||
      !j["access_token"].is_string()) {
    return absl::UnauthenticatedError(
        absl::StrCat(where, " answered without an access_token"));
  }
  GcsToken t;
  t.access_token = j["access_token"].get<std::string>();
  RegisterSecret(t.access_token);
  t.source = source;
  double life = 3600;
  if (j.contains("expires_in") && j["expires_in"].is_number())
    life = j["expires_in"].get<double>();
  if (!(life >= 0 && life <= 86400)) life = 3600;  // NaN, negative, absurd
  double margin = std::min(300.0, life / 2);
  t.refresh_at =
      Clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>((life - margin) * 1000));
  return t;
}

GcsCredentials::GcsCredentials(EnvLookup env)
    : env_(EnvOrProcess(std::move(env))) {}

absl::StatusOr<GcsToken> GcsCredentials::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_ && Clock::now() < cached_->refresh_at) return *cached_;
  auto t = Fetch();
  // Errors may quote what a token endpoint answered, which may echo a
  // secret that was sent.
  if (!t.ok()) {
    return absl::Status(t.status().code(), ScrubSecrets(t.status().message()));
  }
  cached_ = *t;
  return *t;
}

absl::StatusOr<GcsToken> GcsCredentials::Fetch() {
  if (const char* e = env_("STORAGE_EMULATOR_HOST"); e && *e) {
    GcsToken t;
    t.source = "emulator";
    return t;
  }
  if (const char* tok = env_("GOOGLE_OAUTH_ACCESS_TOKEN"); tok && *tok) {
    GcsToken t;
    t.access_token = tok;
    RegisterSecret(t.access_token);
    t.source = "environment";
    return t;
  }
  std::vector<std::string> tried = {"STORAGE_EMULATOR_HOST",
                                    "GOOGLE_OAUTH_ACCESS_TOKEN"};
  if (const char* f = env_("GOOGLE_APPLICATION_CREDENTIALS"); f && *f) {
    return FromKeyFile(f);
  }
  tried.push_back("GOOGLE_APPLICATION_CREDENTIALS");
  std::string adc;
  if (const char* cfg = env_("CLOUDSDK_CONFIG"); cfg && *cfg) {
    adc = absl::StrCat(cfg, "/application_default_credentials.json");
  } else if (const char* home = env_("HOME"); home && *home) {
    adc = absl::StrCat(home,
                       "/.config/gcloud/application_default_credentials.json");
  }
  if (!adc.empty()) {
    // Opened once, without blocking: a FIFO there must not hang the node.
    auto text = ReadRegularFile(adc, kMaxKeyFileBytes,
                                "GCS application-default credentials file");
    if (text.ok()) return FromKeyText(adc, *text);
    if (!absl::IsNotFound(text.status())) return text.status();
    tried.push_back(adc);
  }
  std::string md_state = "off (NO_GCE_CHECK / METADATA_SERVER_DETECTION)";
  if (!MetadataServerOff(env_)) {
    auto t = FromMetadataServer();
    if (t.ok()) return t;
    md_state = std::string(t.status().message());
  }
  return absl::UnauthenticatedError(absl::StrCat(
      "no GCS credentials: none of ", absl::StrJoin(tried, ", "),
      " is set or present, and the metadata server: ", md_state,
      ". Expected one of those (or STORAGE_EMULATOR_HOST for an emulator)"));
}

absl::StatusOr<GcsToken> GcsCredentials::FromKeyFile(const std::string& path) {
  auto text =
      ReadRegularFile(path, kMaxKeyFileBytes,
                      "GCS credentials file (GOOGLE_APPLICATION_CREDENTIALS)");
  if (!text.ok()) {
    if (!absl::IsNotFound(text.status())) return text.status();
    return absl::NotFoundError(
        absl::StrCat("GCS credentials file ", path,
                     " (GOOGLE_APPLICATION_CREDENTIALS) cannot be read: ",
                     text.status().message()));
  }
  return FromKeyText(path, *text);
}

namespace {

// The key files a token can come from ("type" in the JSON).
enum class KeyType { kUnknown, kServiceAccount, kAuthorizedUser };

KeyType KeyTypeOf(const std::string& type) {
  static constexpr std::pair<std::string_view, KeyType> kTypes[] = {
      {"service_account", KeyType::kServiceAccount},
      {"authorized_user", KeyType::kAuthorizedUser}};
  for (const auto& [name, t] : kTypes) {
    if (name == type) return t;
  }
  return KeyType::kUnknown;
}

// A service account's key signs a JWT, which the token endpoint trades
// for an access token.
absl::StatusOr<GcsToken> ServiceAccountToken(const std::string& path,
                                             const nlohmann::json& key,
                                             const std::string& token_uri) {
  const std::string email = Field(key, "client_email");
  const std::string pem = Field(key, "private_key");
  if (email.empty() || pem.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GCS credentials file ", path,
        ": a service_account key needs client_email and private_key"));
  }
  nlohmann::json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  if (!Field(key, "private_key_id").empty())
    header["kid"] = Field(key, "private_key_id");
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          Clock::now().time_since_epoch())
                          .count();
  nlohmann::json claims = {{"iss", email},
                           {"scope", GcsCredentials::kScope},
                           {"aud", token_uri},
                           {"iat", now},
                           {"exp", now + 3600}};
  RegisterSecret(pem);
  auto jwt = SignJwtRs256(header.dump(), claims.dump(), pem);
  if (!jwt.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GCS credentials file ", path, ": ", jwt.status().message()));
  }
  RegisterSecret(*jwt);  // a bearer credential until it expires
  std::string form = absl::StrCat(
      "grant_type=",
      UriEncode("urn:ietf:params:oauth:grant-type:jwt-bearer", true),
      "&assertion=", *jwt);
  return ParseTokenReply(PostForm(token_uri, form), token_uri,
                         absl::StrCat("service account ", email));
}

// A user's refresh token (gcloud auth application-default login).
absl::StatusOr<GcsToken> AuthorizedUserToken(const nlohmann::json& key,
                                             const std::string& token_uri) {
  RegisterSecret(Field(key, "client_secret"));
  RegisterSecret(Field(key, "refresh_token"));
  std::string form = absl::StrCat(
      "grant_type=refresh_token&client_id=",
      UriEncode(Field(key, "client_id"), true),
      "&client_secret=", UriEncode(Field(key, "client_secret"), true),
      "&refresh_token=", UriEncode(Field(key, "refresh_token"), true));
  return ParseTokenReply(PostForm(token_uri, form), token_uri,
                         "authorized_user");
}

}  // namespace

absl::StatusOr<GcsToken> GcsCredentials::FromKeyText(const std::string& path,
                                                     const std::string& text) {
  nlohmann::json key = nlohmann::json::parse(text, nullptr, false);
  const std::string type = key.is_object() ? Field(key, "type") : "";
  std::string token_uri = key.is_object() ? Field(key, "token_uri") : "";
  if (token_uri.empty()) token_uri = kDefaultTokenUri;
  switch (KeyTypeOf(type)) {
    case KeyType::kServiceAccount:
      return ServiceAccountToken(path, key, token_uri);
    case KeyType::kAuthorizedUser:
      return AuthorizedUserToken(key, token_uri);
    case KeyType::kUnknown:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "GCS credentials file ", path, ": type '", type,
      "' is not supported; expected a JSON key of type service_account or "
      "authorized_user"));
}

absl::StatusOr<GcsToken> GcsCredentials::FromMetadataServer() {
  std::string host = "metadata.google.internal";
  if (const char* h = env_("GCE_METADATA_HOST"); h && *h) {
    host = h;
  } else if (const char* ip = env_("GCE_METADATA_IP"); ip && *ip) {
    host = ip;
  }
  const std::string url = absl::StrCat(
      "http://", host,
      "/computeMetadata/v1/instance/service-accounts/default/token");
  HttpResponse rep;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    rep = FetchOnce(HttpMethod::kGet, url, {{"Metadata-Flavor", "Google"}});
    if (rep.status != 0 && rep.status < 500) break;
    if (rep.status == 0 && PermanentTransportError(rep.curl_code)) break;
    if (attempt < 3) SleepBeforeRetry(attempt - 1, nullptr);
  }
  if (rep.status == 0) {
    return absl::UnavailableError(
        absl::StrCat("the metadata server (", host,
                     ") did not answer: ", FailureDetail(rep, url, "")));
  }
  return ParseTokenReply(rep, absl::StrCat("the metadata server (", host, ")"),
                         "metadata");
}

}  // namespace ckpt
