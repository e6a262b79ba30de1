#include "node/storage/s3_credentials.h"

#include <cstdlib>
#include <ctime>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace ckpt {

AwsCredentialChain::AwsCredentialChain(EnvLookup env) : env_(std::move(env)) {
  if (!env_) env_ = [](const char* n) { return std::getenv(n); };
}

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
  std::ifstream in(path);
  if (!in) {
    if (env_("AWS_PROFILE") != nullptr ||
        env_("AWS_SHARED_CREDENTIALS_FILE") != nullptr) {
      return absl::NotFoundError(absl::StrCat("AWS credentials file ", path,
                                              " (profile ", profile,
                                              ") cannot be read"));
    }
    return std::nullopt;
  }
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
    if (k == "aws_access_key_id") c.access_key = v;
    if (k == "aws_secret_access_key") c.secret_key = v;
    if (k == "aws_session_token") c.session_token = v;
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

absl::StatusOr<AwsCredentials> AwsCredentialChain::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t now = static_cast<int64_t>(std::time(nullptr));
  if (cached_ &&
      (cached_->expires_unix == 0 || cached_->expires_unix - now > 300)) {
    return *cached_;
  }
  for (auto source : {&AwsCredentialChain::FromEnvironment,
                      &AwsCredentialChain::FromSharedFile}) {
    auto c = (this->*source)();
    if (!c.ok()) return c.status();
    if (c->has_value()) {
      cached_ = **c;
      return *cached_;
    }
  }
  return absl::UnauthenticatedError(
      "no AWS credentials: tried AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY and "
      "the shared credentials file (AWS_SHARED_CREDENTIALS_FILE, "
      "~/.aws/credentials, AWS_PROFILE)");
}

}  // namespace ckpt
