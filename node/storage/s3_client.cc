#include "node/storage/s3_client.h"

#include <curl/curl.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ckpt {
namespace {

bool IsIpOrLocal(const std::string& host) {
  std::string h = host.substr(
      0, host.rfind(':') == std::string::npos ? host.size() : host.rfind(':'));
  if (h == "localhost" || (!h.empty() && h.front() == '[')) return true;
  for (char c : h) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.'))
      return false;
  }
  return !h.empty();
}

// Transport failures that another attempt cannot mend: the certificate
// does not verify, the CA bundle cannot be read, the URL is wrong.
bool PermanentTransportError(int curl_code) {
  return curl_code == CURLE_PEER_FAILED_VERIFICATION ||
         curl_code == CURLE_SSL_CACERT_BADFILE ||
         curl_code == CURLE_SSL_CERTPROBLEM ||
         curl_code == CURLE_URL_MALFORMAT ||
         curl_code == CURLE_UNSUPPORTED_PROTOCOL;
}

bool Retryable(const HttpResponse& r, const std::string& code) {
  if (r.status == 0) return !PermanentTransportError(r.curl_code);
  if (r.status == 500 || r.status == 502 || r.status == 503 ||
      r.status == 504 || r.status == 429) {
    return true;
  }
  return code == "SlowDown" || code == "RequestTimeout" ||
         code == "InternalError" || code == "ServiceUnavailable";
}

}  // namespace

S3Counters& GlobalS3Counters() {
  static S3Counters* c = new S3Counters;
  return *c;
}

std::string XmlValue(const std::string& xml, const std::string& tag,
                     size_t from) {
  std::string open = "<" + tag + ">", close = "</" + tag + ">";
  size_t a = xml.find(open, from);
  if (a == std::string::npos) return "";
  a += open.size();
  size_t b = xml.find(close, a);
  if (b == std::string::npos) return "";
  return xml.substr(a, b - a);
}

std::vector<std::string> XmlValues(const std::string& xml,
                                   const std::string& tag) {
  std::vector<std::string> out;
  std::string open = "<" + tag + ">", close = "</" + tag + ">";
  for (size_t a = xml.find(open); a != std::string::npos;
       a = xml.find(open, a)) {
    a += open.size();
    size_t b = xml.find(close, a);
    if (b == std::string::npos) break;
    out.push_back(xml.substr(a, b - a));
    a = b;
  }
  return out;
}

absl::StatusOr<S3Location> ParseS3Uri(const std::string& uri) {
  if (!absl::StartsWith(uri, "s3://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", uri, "': expected s3://bucket/prefix"));
  }
  std::string rest = uri.substr(5);
  size_t slash = rest.find('/');
  S3Location loc;
  loc.bucket = rest.substr(0, slash);
  if (slash != std::string::npos) loc.key = rest.substr(slash + 1);
  while (!loc.key.empty() && loc.key.back() == '/') loc.key.pop_back();
  if (loc.bucket.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", uri, "': no bucket name"));
  }
  return loc;
}

absl::StatusOr<S3Config> S3ConfigFromOptions(
    const std::map<std::string, std::string>& options) {
  Config c;
  for (const auto& [k, v] : options) {
    const KeyDef* def = FindKey(k);
    if (def == nullptr || k.rfind("s3.", 0) != 0) continue;
    if (auto s = def->set(c, v); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(k, " = '", v, "': ", s.message()));
    }
  }
  if (c.s3.endpoint.empty()) {
    if (const char* e = std::getenv("AWS_ENDPOINT_URL_S3"))
      c.s3.endpoint = e;
    else if (const char* e2 = std::getenv("AWS_ENDPOINT_URL"))
      c.s3.endpoint = e2;
  }
  if (options.count("s3.region") == 0) {
    if (const char* r = std::getenv("AWS_REGION"))
      c.s3.region = r;
    else if (const char* r2 = std::getenv("AWS_DEFAULT_REGION"))
      c.s3.region = r2;
  }
  return c.s3;
}

S3Client::S3Client(S3Config config,
                   std::shared_ptr<AwsCredentialChain> credentials)
    : config_(std::move(config)), credentials_(std::move(credentials)) {
  std::string ep = config_.endpoint;
  if (ep.empty())
    ep = absl::StrCat("https://s3.", config_.region, ".amazonaws.com");
  size_t scheme_end = ep.find("://");
  scheme_ =
      scheme_end == std::string::npos ? "https" : ep.substr(0, scheme_end);
  host_ = scheme_end == std::string::npos ? ep : ep.substr(scheme_end + 3);
  while (!host_.empty() && host_.back() == '/') host_.pop_back();
  path_style_ = config_.addressing == "path" ||
                (config_.addressing == "auto" && IsIpOrLocal(host_));
}

std::string S3Client::Endpoint() const {
  return absl::StrCat(scheme_, "://", host_);
}

std::unique_ptr<HttpClient> S3Client::Acquire() {
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (!pool_.empty()) {
    auto c = std::move(pool_.back());
    pool_.pop_back();
    return c;
  }
  HttpOptions o;
  o.verify_tls = config_.verify_tls;
  o.ca_bundle = config_.ca_bundle;
  o.stall_seconds = config_.stall_timeout;
  return std::make_unique<HttpClient>(o);
}

void S3Client::Release(std::unique_ptr<HttpClient> c) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  pool_.push_back(std::move(c));
}

absl::StatusOr<HttpResponse> S3Client::Do(const S3Call& call) {
  auto creds = credentials_->Get();
  if (!creds.ok()) return creds.status();
  std::string host =
      path_style_ ? host_ : absl::StrCat(call.bucket, ".", host_);
  std::string path = path_style_ ? absl::StrCat("/", call.bucket, "/", call.key)
                                 : absl::StrCat("/", call.key);
  if (call.key.empty())
    path = path_style_ ? absl::StrCat("/", call.bucket) : "/";
  std::string payload = kUnsignedPayload;
  if (config_.payload_signing == "signed" || call.body == nullptr) {
    payload = call.body ? Sha256Hex(call.body, call.body_len) : kEmptySha256;
  }
  auto client = Acquire();
  std::mt19937_64 rng(std::random_device{}());
  std::string what =
      absl::StrCat(call.method, " s3://", call.bucket, "/", call.key);
  for (int attempt = 1;; ++attempt) {
    SigV4Request sr{call.method, host, path, call.query, call.headers, payload};
    SigV4Signed s = SignV4(sr, *creds, config_.region, AmzDateNow());
    HttpRequest req;
    req.method = call.method;
    req.url = absl::StrCat(scheme_, "://", host, s.path,
                           s.query.empty() ? "" : "?", s.query);
    req.headers = s.headers;
    req.body = call.body;
    req.body_len = call.body_len;
    req.sink = call.sink;
    req.sink_capacity = call.sink_capacity;
    GlobalS3Counters().requests++;
    HttpResponse rep = client->Do(req);
    std::string code, message;
    bool ok = rep.status >= 200 && rep.status < 300;
    if (!ok ||
        (call.error_in_200 && rep.body.find("<Error>") != std::string::npos)) {
      ok = false;
      code = XmlValue(rep.body, "Code");
      message = XmlValue(rep.body, "Message");
    }
    if (ok) {
      Release(std::move(client));
      return rep;
    }
    if (code == "SlowDown" || rep.status == 429) GlobalS3Counters().throttles++;
    std::string detail =
        rep.status == 0
            ? absl::StrCat(
                  rep.stalled ? "transfer stalled: " : "connection error: ",
                  rep.curl_error, " (", scheme_, "://", host, ")")
            : absl::StrCat("HTTP ", rep.status, code.empty() ? "" : " ", code,
                           message.empty() ? "" : ": ", message);
    if (!Retryable(rep, code) || attempt >= config_.max_attempts) {
      Release(std::move(client));
      std::string msg = absl::StrCat(
          what, ": ", detail,
          attempt > 1 ? absl::StrCat(" (after ", attempt, " attempts)") : "");
      if (rep.status == 404) return absl::NotFoundError(msg);
      if (rep.status == 403) return absl::PermissionDeniedError(msg);
      if (rep.status == 0) return absl::UnavailableError(msg);
      return absl::FailedPreconditionError(msg);
    }
    GlobalS3Counters().retries++;
    // Full jitter: N nodes hitting one bucket must not retry in lockstep.
    double cap =
        std::min(20.0, 0.2 * static_cast<double>(1u << std::min(attempt, 10)));
    std::uniform_real_distribution<double> jitter(0, cap);
    std::this_thread::sleep_for(std::chrono::duration<double>(jitter(rng)));
  }
}

}  // namespace ckpt
