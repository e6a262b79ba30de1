#include "node/storage/gcs_client.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/secrets.h"
#include "nlohmann/json.hpp"
#include "node/storage/http_retry.h"
#include "node/storage/object_io.h"

namespace ckpt {

absl::StatusOr<GcsObject> ParseGsUri(const std::string& uri) {
  auto parts = SplitBucketUri(uri, "gs://");
  if (!parts.ok()) return parts.status();
  return GcsObject{parts->bucket, parts->key};
}

std::string GsUri(const GcsObject& o) {
  return absl::StrCat("gs://", o.bucket, "/", o.name);
}

std::string GcsErrorDetail(const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("error") || !j["error"].is_object())
    return "";
  const auto& e = j["error"];
  std::string reason;
  if (e.contains("errors") && e["errors"].is_array() && !e["errors"].empty() &&
      e["errors"][0].is_object())
    reason = JsonString(e["errors"][0], "reason");
  std::string message = JsonString(e, "message");
  return absl::StrCat(reason, reason.empty() || message.empty() ? "" : ": ",
                      message);
}

absl::Status DeleteObject(GcsClient& client, const GcsObject& obj) {
  GcsCall c;
  c.method = HttpMethod::kDelete;
  c.path = GcsClient::ObjectPath(obj);
  auto rep = client.Do(c);
  return rep.ok() || absl::IsNotFound(rep.status()) ? absl::OkStatus()
                                                    : rep.status();
}

bool GcsRetryable(const HttpResponse& rep) {
  if (rep.status == 0) return !PermanentTransportError(rep.curl_code);
  return rep.status == 408 || rep.status == 429 || rep.status >= 500;
}

GcsClient::GcsClient(GcsConfig config,
                     std::shared_ptr<GcsCredentials> credentials,
                     std::shared_ptr<ObjectStoreCounters> counters)
    : config_(std::move(config)),
      credentials_(std::move(credentials)),
      pool_(HttpOptions{config_.verify_tls, config_.ca_bundle,
                        config_.stall_timeout, 10},
            std::move(counters)) {
  endpoint_ = config_.endpoint.empty() ? "https://storage.googleapis.com"
                                       : config_.endpoint;
  while (!endpoint_.empty() && endpoint_.back() == '/') endpoint_.pop_back();
}

std::string GcsClient::ObjectPath(const GcsObject& o) {
  return absl::StrCat("/storage/v1/b/", UriEncode(o.bucket, true), "/o/",
                      UriEncode(o.name, true));
}

std::string GcsClient::UploadPath(const std::string& bucket) {
  return absl::StrCat("/upload/storage/v1/b/", UriEncode(bucket, true), "/o");
}

absl::StatusOr<HttpResponse> GcsClient::Do(const GcsCall& call) {
  // gcs.anonymous: an emulator's endpoint gets no token, and no credential
  // source is asked for one.
  absl::StatusOr<GcsToken> token = GcsToken();
  if (!config_.anonymous) token = credentials_->Get();
  if (!token.ok()) return token.status();
  const bool session = absl::StartsWith(call.path, "http");
  HttpRequest req;
  req.method = call.method;
  req.url = session ? call.path : absl::StrCat(endpoint_, call.path);
  HeaderList query = call.query;
  if (config_.user_project && !config_.project.empty())
    query.push_back({"userProject", config_.project});
  for (size_t i = 0; i < query.size(); ++i) {
    absl::StrAppend(
        &req.url, i == 0 && req.url.find('?') == std::string::npos ? "?" : "&",
        UriEncode(query[i].first, true), "=", UriEncode(query[i].second, true));
  }
  req.headers = call.headers;
  if (!token->access_token.empty())
    req.headers.push_back(
        {"Authorization", absl::StrCat("Bearer ", token->access_token)});
  req.body = call.body;
  req.body_len = call.body_len;
  req.body_head = call.body_head;
  req.body_tail = call.body_tail;
  req.sink = call.sink;
  req.sink_capacity = call.sink_capacity;
  req.max_body = call.max_body;
  // What errors name: the method and the object, never the session's
  // upload_id (it acts as a credential).
  const std::string what =
      session
          ? absl::StrCat(std::string(MethodName(call.method)), " session")
          : absl::StrCat(std::string(MethodName(call.method)), " ", endpoint_,
                         call.path.substr(0, call.path.find('?')));
  auto sent = SendWithRetries(
      pool_, call.retry ? config_.max_attempts : 1, [&] { return req; },
      [&](const HttpResponse& rep) {
        if ((rep.status >= 200 && rep.status < 300) ||
            std::find(call.also_ok.begin(), call.also_ok.end(), rep.status) !=
                call.also_ok.end())
          return Verdict::kDone;
        if (rep.status == 429) return Verdict::kThrottled;
        return GcsRetryable(rep) ? Verdict::kRetry : Verdict::kFail;
      });
  if (sent.ok) return std::move(sent.rep);
  const HttpResponse& rep = sent.rep;
  // The server's words may echo the request's headers (the bearer token).
  std::string msg = ScrubSecrets(absl::StrCat(
      what, ": ", FailureDetail(rep, endpoint_, GcsErrorDetail(rep.body)),
      AfterAttempts(sent.attempts)));
  // Descriptors, memory: this machine's shortage, not the store's fault.
  if (rep.status == 0 && rep.local_errno != 0) {
    return ErrnoStatus(rep.local_errno, msg);
  }
  if (rep.status == 404 || rep.status == 410) return absl::NotFoundError(msg);
  if (rep.status == 401) return absl::UnauthenticatedError(msg);
  if (rep.status == 403) return absl::PermissionDeniedError(msg);
  if (rep.status == 412) return absl::AlreadyExistsError(msg);
  if (rep.status == 0 && PermanentTransportError(rep.curl_code)) {
    return absl::FailedPreconditionError(msg);  // e.g. a TLS certificate
  }
  if (rep.status == 0 || GcsRetryable(rep)) return absl::UnavailableError(msg);
  return absl::FailedPreconditionError(msg);
}

std::string JsonString(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace ckpt
