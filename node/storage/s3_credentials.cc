#include "node/storage/s3_credentials.h"

#include <cstdlib>
#include <ctime>
#include <sstream>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/secrets.h"
#include "node/storage/http_client.h"
#include "node/storage/http_retry.h"
#include "node/storage/s3_client.h"

namespace ckpt {
namespace {

// Bounds on the files read as credentials, which may be anything the
// environment names (a FIFO, /dev/zero, a log): a web identity or pod
// identity token is a JWT of 1-4 KiB, so 64 KiB is ample; a shared
// credentials file holds a few lines per profile, so 1 MiB is thousands
// of profiles.
constexpr uint64_t kMaxTokenFileBytes = 64 << 10;
constexpr uint64_t kMaxCredentialsFileBytes = 1 << 20;

// A shared credentials file's keys of a profile, and what each sets.
const std::pair<std::string_view, std::string AwsCredentials::*>
    kCredentialKeys[] = {
        {"aws_access_key_id", &AwsCredentials::access_key},
        {"aws_secret_access_key", &AwsCredentials::secret_key},
        {"aws_session_token", &AwsCredentials::session_token},
};

// A token file named by `env_name`, stripped; its errors name both.
absl::StatusOr<std::string> ReadTokenFile(const std::string& what,
                                          const char* env_name,
                                          const std::string& path) {
  auto text = ReadRegularFile(path, kMaxTokenFileBytes,
                              absl::StrCat(what, " (", env_name, ")"));
  if (!text.ok()) return text.status();
  std::string token(absl::StripAsciiWhitespace(*text));
  if (token.empty()) {
    return absl::UnauthenticatedError(absl::StrCat(
        what, " (", env_name, ") ", path, " is empty; expected a token"));
  }
  RegisterSecret(token);
  return token;
}

// A node whose keys should have come from Kubernetes Secret `secret`
// (envFrom, optional) and did not: input to fix, with the fix. `which`:
// "" (neither key is set) or "only one of ".
absl::Status KeysSecretMissing(const std::string& secret,
                               const std::string& which) {
  return absl::InvalidArgumentError(absl::StrCat(
      "no S3 access keys on this node: s3.keys_secret (CKPT_S3_KEYS_SECRET) "
      "says they come from the Kubernetes Secret '",
      secret, "', and ", which.empty() ? "neither of " : which,
      "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set in the pod; the "
      "Secret is missing from the namespace or lacks those keys. Create it "
      "(kubectl create secret generic ",
      secret,
      " --from-literal=AWS_ACCESS_KEY_ID=... "
      "--from-literal=AWS_SECRET_ACCESS_KEY=...) and apply again; no other "
      "credential source is tried"));
}

}  // namespace

AwsCredentialChain::AwsCredentialChain(EnvLookup env, std::string keys_secret)
    : env_(EnvOrProcess(std::move(env))),
      keys_secret_(std::move(keys_secret)) {}

absl::StatusOr<std::optional<AwsCredentials>>
AwsCredentialChain::FromEnvironment() {
  const char* id = env_("AWS_ACCESS_KEY_ID");
  const char* secret = env_("AWS_SECRET_ACCESS_KEY");
  if (id == nullptr && secret == nullptr) return std::nullopt;
  if (id == nullptr || secret == nullptr || !*id || !*secret) {
    return absl::InvalidArgumentError(
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together");
  }
  AwsCredentials c;
  c.access_key = id;
  c.secret_key = secret;
  if (const char* t = env_("AWS_SESSION_TOKEN")) c.session_token = t;
  c.source = "environment";
  return c;
}

absl::StatusOr<std::optional<AwsCredentials>>
AwsCredentialChain::FromSharedFile() {
  std::string path;
  if (const char* f = env_("AWS_SHARED_CREDENTIALS_FILE")) {
    path = f;
  } else if (const char* home = env_("HOME")) {
    path = absl::StrCat(home, "/.aws/credentials");
  } else {
    return std::nullopt;
  }
  std::string profile = "default";
  if (const char* p = env_("AWS_PROFILE")) profile = p;
  const bool named = env_("AWS_SHARED_CREDENTIALS_FILE") != nullptr;
  auto text = ReadRegularFile(
      path, kMaxCredentialsFileBytes,
      absl::StrCat("AWS credentials file (",
                   named ? "AWS_SHARED_CREDENTIALS_FILE" : "~/.aws/credentials",
                   ", profile ", profile, ")"));
  if (!text.ok()) {
    // Only a default file that is not there is no credentials file.
    if (!absl::IsNotFound(text.status()) || named ||
        env_("AWS_PROFILE") != nullptr) {
      return text.status();
    }
    return std::nullopt;
  }
  std::istringstream in(*text);
  AwsCredentials c;
  std::string line, section;
  bool found = false;
  while (std::getline(in, line)) {
    std::string t(absl::StripAsciiWhitespace(line));
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      section =
          std::string(absl::StripAsciiWhitespace(t.substr(1, t.size() - 2)));
      if (section.rfind("profile ", 0) == 0) section = section.substr(8);
      continue;
    }
    if (section != profile) continue;
    size_t eq = t.find('=');
    if (eq == std::string::npos) continue;
    std::string k(absl::StripAsciiWhitespace(t.substr(0, eq)));
    std::string v(absl::StripAsciiWhitespace(t.substr(eq + 1)));
    found = true;
    for (const auto& [name, member] : kCredentialKeys) {
      if (k == name) c.*member = v;
    }
  }
  if (!found) {
    if (env_("AWS_PROFILE") != nullptr) {
      return absl::NotFoundError(
          absl::StrCat("AWS_PROFILE=", profile, ": no such profile in ", path));
    }
    return std::nullopt;
  }
  if (c.access_key.empty() || c.secret_key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " profile ", profile,
                     ": expected aws_access_key_id and aws_secret_access_key"));
  }
  c.source = absl::StrCat("profile ", profile, " in ", path);
  return c;
}

namespace {

// "2026-11-22T05:00:00Z" -> unix seconds (0 if unparsable).
int64_t ParseIso8601(const std::string& t) {
  std::tm tm{};
  if (strptime(t.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

// Value of a flat JSON string field ("Key": "value"); "" if absent.
std::string JsonField(const std::string& json, const std::string& key) {
  size_t k = json.find("\"" + key + "\"");
  if (k == std::string::npos) return "";
  size_t colon = json.find(':', k);
  size_t q1 = json.find('"', colon);
  if (colon == std::string::npos || q1 == std::string::npos) return "";
  std::string out;
  for (size_t i = q1 + 1; i < json.size() && json[i] != '"'; ++i) {
    if (json[i] == '\\' && i + 1 < json.size()) ++i;
    out += json[i];
  }
  return out;
}

std::string FormEncode(const std::string& s) { return UriEncode(s, true); }

// The JSON both the container endpoint and IMDS answer with.
absl::StatusOr<std::optional<AwsCredentials>> CredentialsFromJson(
    const std::string& body, const std::string& source) {
  AwsCredentials c;
  c.access_key = JsonField(body, "AccessKeyId");
  c.secret_key = JsonField(body, "SecretAccessKey");
  c.session_token = JsonField(body, "Token");
  c.expires_unix = ParseIso8601(JsonField(body, "Expiration"));
  c.source = source;
  if (c.access_key.empty() || c.secret_key.empty()) {
    return absl::UnauthenticatedError(
        absl::StrCat(source, " returned no credentials"));
  }
  return c;
}

// Why an endpoint's answer is not the one wanted; a request that never
// went out for a shortage of this process's own (EMFILE) says so.
std::string Describe(const HttpResponse& r) {
  if (r.status == 0 && r.local_errno != 0) return FailureDetail(r, "it", "");
  return r.status == 0 ? r.curl_error : absl::StrCat("HTTP ", r.status);
}

}  // namespace

absl::StatusOr<std::optional<AwsCredentials>>
AwsCredentialChain::FromWebIdentity() {
  const char* token_file = env_("AWS_WEB_IDENTITY_TOKEN_FILE");
  const char* role = env_("AWS_ROLE_ARN");
  if (token_file == nullptr || role == nullptr) return std::nullopt;
  auto token = ReadTokenFile("web identity token file",
                             "AWS_WEB_IDENTITY_TOKEN_FILE", token_file);
  if (!token.ok()) return token.status();
  std::string session = "ckptbench";
  if (const char* n = env_("AWS_ROLE_SESSION_NAME")) session = n;
  std::string region = "us-east-1";
  if (const char* r = env_("AWS_REGION")) region = r;
  std::string endpoint = absl::StrCat("https://sts.", region, ".amazonaws.com");
  if (const char* e = env_("AWS_ENDPOINT_URL_STS")) endpoint = e;
  std::string body = absl::StrCat(
      "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=",
      FormEncode(role), "&RoleSessionName=", FormEncode(session),
      "&WebIdentityToken=", FormEncode(*token));
  HttpResponse rep =
      FetchOnce(HttpMethod::kPost, endpoint + "/",
                {{"Content-Type", "application/x-www-form-urlencoded"}}, body);
  if (rep.status != 200) {
    std::string code = XmlValue(rep.body, "Code");
    return absl::UnauthenticatedError(absl::StrCat(
        "STS AssumeRoleWithWebIdentity for ", role, " at ", endpoint,
        " failed: ", Describe(rep), code.empty() ? "" : " ", code));
  }
  AwsCredentials c;
  c.access_key = XmlValue(rep.body, "AccessKeyId");
  c.secret_key = XmlValue(rep.body, "SecretAccessKey");
  c.session_token = XmlValue(rep.body, "SessionToken");
  c.expires_unix = ParseIso8601(XmlValue(rep.body, "Expiration"));
  c.source = absl::StrCat("web identity (", role, ")");
  if (c.access_key.empty() || c.secret_key.empty()) {
    return absl::UnauthenticatedError(
        "STS AssumeRoleWithWebIdentity returned no credentials");
  }
  return c;
}

absl::StatusOr<std::optional<AwsCredentials>>
AwsCredentialChain::FromContainer() {
  std::string url;
  if (const char* full = env_("AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
    url = full;
  } else if (const char* rel = env_("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
    url = absl::StrCat("http://169.254.170.2", rel);
  } else {
    return std::nullopt;
  }
  HeaderList headers;
  if (const char* f = env_("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")) {
    auto token = ReadTokenFile("container authorization token file",
                               "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", f);
    if (!token.ok()) return token.status();
    headers.push_back({"Authorization", *token});
  } else if (const char* t = env_("AWS_CONTAINER_AUTHORIZATION_TOKEN")) {
    RegisterSecret(t);
    headers.push_back({"Authorization", t});
  }
  HttpResponse rep = FetchOnce(HttpMethod::kGet, url, headers);
  if (rep.status != 200) {
    return absl::UnauthenticatedError(absl::StrCat(
        "container credentials endpoint ", url, " failed: ", Describe(rep)));
  }
  return CredentialsFromJson(rep.body,
                             absl::StrCat("container endpoint ", url));
}

absl::StatusOr<std::optional<AwsCredentials>>
AwsCredentialChain::FromInstanceMetadata() {
  if (const char* d = env_("AWS_EC2_METADATA_DISABLED")) {
    if (absl::AsciiStrToLower(d) == "true") return std::nullopt;
  }
  std::string base = "http://169.254.169.254";
  if (const char* e = env_("AWS_EC2_METADATA_SERVICE_ENDPOINT")) base = e;
  while (!base.empty() && base.back() == '/') base.pop_back();
  HttpResponse tok =
      FetchOnce(HttpMethod::kPut, base + "/latest/api/token",
                {{"X-aws-ec2-metadata-token-ttl-seconds", "21600"}});
  if (tok.status == 0 && tok.local_errno != 0) {  // not "not on EC2"
    return ErrnoStatus(
        tok.local_errno,
        absl::StrCat("instance metadata at ", base, ": ", Describe(tok)));
  }
  if (tok.status != 200) return std::nullopt;  // not on EC2
  RegisterSecret(tok.body);
  HeaderList h = {{"X-aws-ec2-metadata-token", tok.body}};
  const std::string path = "/latest/meta-data/iam/security-credentials/";
  HttpResponse role = FetchOnce(HttpMethod::kGet, base + path, h);
  std::string name(absl::StripAsciiWhitespace(role.body));
  if (role.status != 200 || name.empty()) {
    return absl::UnauthenticatedError(absl::StrCat(
        "instance metadata at ", base, ": no IAM role (", Describe(role), ")"));
  }
  name = name.substr(0, name.find('\n'));
  HttpResponse rep = FetchOnce(HttpMethod::kGet, base + path + name, h);
  if (rep.status != 200) {
    return absl::UnauthenticatedError(
        absl::StrCat("instance metadata role ", name, ": ", Describe(rep)));
  }
  return CredentialsFromJson(rep.body,
                             absl::StrCat("instance metadata role ", name));
}

absl::StatusOr<AwsCredentials> AwsCredentialChain::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t now = static_cast<int64_t>(std::time(nullptr));
  if (cached_ &&
      (cached_->expires_unix == 0 || cached_->expires_unix - now > 300)) {
    return *cached_;
  }
  std::optional<AwsCredentials> found;
  if (!keys_secret_.empty()) {
    auto c = FromEnvironment();
    if (!c.ok() || !c->has_value()) {
      return KeysSecretMissing(keys_secret_, c.ok() ? "" : "only one of ");
    }
    found = **c;
  } else {
    for (auto source : {&AwsCredentialChain::FromEnvironment,
                        &AwsCredentialChain::FromSharedFile,
                        &AwsCredentialChain::FromWebIdentity,
                        &AwsCredentialChain::FromContainer,
                        &AwsCredentialChain::FromInstanceMetadata}) {
      auto c = (this->*source)();
      // Errors may quote what an endpoint answered, which may echo a token.
      if (!c.ok()) {
        return absl::Status(c.status().code(),
                            ScrubSecrets(c.status().message()));
      }
      found = *std::move(c);
      if (found) break;
    }
  }
  if (!found) {
    return absl::UnauthenticatedError(
        "no AWS credentials: tried AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "
        "the shared credentials file (AWS_SHARED_CREDENTIALS_FILE, "
        "~/.aws/credentials, AWS_PROFILE), web identity "
        "(AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN), the container endpoint "
        "(AWS_CONTAINER_CREDENTIALS_FULL_URI) and instance metadata");
  }
  // The access key id is an identifier, not a secret.
  RegisterSecret(found->secret_key);
  RegisterSecret(found->session_token);
  cached_ = std::move(found);
  return *cached_;
}

}  // namespace ckpt
