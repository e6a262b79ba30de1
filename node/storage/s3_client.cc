#include "node/storage/s3_client.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/files.h"
#include "common/secrets.h"
#include "node/storage/http_retry.h"
#include "node/storage/object_io.h"

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

// What an S3 error code (the XML body's <Code>) says about the request.
enum class CodeMeans { kOther, kThrottled, kRetry, kConflict, kDataLoss };

// S3's error codes this client acts on
// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
constexpr std::pair<std::string_view, CodeMeans> kCodes[] = {
    {"SlowDown", CodeMeans::kThrottled},
    {"RequestTimeout", CodeMeans::kRetry},
    {"InternalError", CodeMeans::kRetry},
    {"ServiceUnavailable", CodeMeans::kRetry},
    // A concurrent conditional write of the key is in flight (AWS).
    {"ConditionalRequestConflict", CodeMeans::kConflict},
    {"BadDigest", CodeMeans::kDataLoss},
    {"InvalidDigest", CodeMeans::kDataLoss},
    {"XAmzContentSHA256Mismatch", CodeMeans::kDataLoss},
};

CodeMeans Means(const std::string& code) {
  for (const auto& [name, means] : kCodes) {
    if (name == code) return means;
  }
  return CodeMeans::kOther;
}

bool Retryable(const HttpResponse& r, CodeMeans code) {
  if (r.status == 0) return !PermanentTransportError(r.curl_code);
  if (r.status == 500 || r.status == 502 || r.status == 503 ||
      r.status == 504 || r.status == 429) {
    return true;
  }
  return code == CodeMeans::kThrottled || code == CodeMeans::kRetry;
}

// The status of a request that failed for good, by what S3 answered
// (`msg` says what was asked and what the server said).
absl::Status S3Failure(const HttpResponse& rep, const std::string& msg) {
  // Descriptors, memory: this machine's shortage, not the store's fault.
  if (rep.status == 0 && rep.local_errno != 0) {
    return ErrnoStatus(rep.local_errno, msg);
  }
  if (rep.status == 404) return absl::NotFoundError(msg);
  if (rep.status == 403) return absl::PermissionDeniedError(msg);
  // Conditional writes: 412 the condition failed (the key exists), 409 a
  // concurrent conditional write of the key is in flight (AWS), 501 the
  // store has none (Swift: "Conditional object PUTs are not supported").
  if (rep.status == 412) return absl::AlreadyExistsError(msg);
  const CodeMeans code = Means(XmlValue(rep.body, "Code"));
  if (rep.status == 409 && code == CodeMeans::kConflict) {
    return absl::AbortedError(msg);
  }
  if (rep.status == 501) return absl::UnimplementedError(msg);
  // Still failing after the retries: the store is unavailable or busy.
  if (rep.status >= 500 || rep.status == 429) {
    return absl::UnavailableError(msg);
  }
  if (code == CodeMeans::kDataLoss) {
    return absl::DataLossError(msg);
  }
  if (rep.status == 0) {
    // A certificate that does not verify is a setting to fix, not an
    // outage (s3.ca_bundle, AWS_CA_BUNDLE).
    return PermanentTransportError(rep.curl_code)
               ? absl::FailedPreconditionError(msg)
               : absl::UnavailableError(msg);
  }
  return absl::FailedPreconditionError(msg);
}

}  // namespace

std::string XmlValue(const std::string& xml, const std::string& tag,
                     size_t from) {
  std::string open = "<" + tag + ">", close = "</" + tag + ">";
  size_t a = xml.find(open, from);
  if (a == std::string::npos) return "";
  a += open.size();
  size_t b = xml.find(close, a);
  if (b == std::string::npos) return "";
  return XmlText(xml.substr(a, b - a));
}

std::vector<std::string> XmlTexts(const std::string& xml,
                                  const std::string& tag) {
  std::vector<std::string> out = XmlValues(xml, tag);
  for (auto& v : out) v = XmlText(v);
  return out;
}

namespace {

// The code point of a character reference's inside ("#38", "#x26"), or
// none when it is not a valid one (0, a surrogate, past U+10FFFF).
std::optional<uint32_t> CharRef(const std::string& ref) {
  if (ref.size() < 2 || ref[0] != '#') return std::nullopt;
  const bool hex = ref[1] == 'x' || ref[1] == 'X';
  const std::string digits = ref.substr(hex ? 2 : 1);
  if (digits.empty() || digits.size() > 8) return std::nullopt;
  uint32_t cp = 0;
  for (char d : digits) {
    const auto u = static_cast<unsigned char>(d);
    int v = -1;
    if (std::isdigit(u)) v = d - '0';
    if (hex && std::isxdigit(u) && !std::isdigit(u)) {
      v = 10 + std::tolower(u) - 'a';
    }
    if (v < 0) return std::nullopt;
    cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(v);
  }
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return std::nullopt;
  }
  return cp;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
    return;
  }
  const int n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  static const unsigned char kLead[] = {0, 0, 0xC0, 0xE0, 0xF0};
  *out += static_cast<char>(kLead[n] | (cp >> (6 * (n - 1))));
  for (int k = n - 2; k >= 0; --k) {
    *out += static_cast<char>(0x80 | ((cp >> (6 * k)) & 0x3F));
  }
}

}  // namespace

std::string XmlText(const std::string& raw) {
  static const std::pair<const char*, char> kNamed[] = {
      {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    const size_t semi = raw[i] == '&' ? raw.find(';', i) : std::string::npos;
    if (semi == std::string::npos || semi - i > 12) {
      out += raw[i];
      continue;
    }
    const std::string ref = raw.substr(i + 1, semi - i - 1);
    const auto named =
        std::find_if(std::begin(kNamed), std::end(kNamed),
                     [&](const auto& e) { return ref == e.first; });
    if (named != std::end(kNamed)) {
      out += named->second;
    } else if (auto cp = CharRef(ref)) {
      AppendUtf8(*cp, &out);
    } else {
      out += raw[i];  // not a reference: kept as it is
      continue;
    }
    i = semi;
  }
  return out;
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
  auto parts = SplitBucketUri(uri, "s3://");
  if (!parts.ok()) return parts.status();
  return S3Location{parts->bucket, parts->key};
}

S3Client::S3Client(S3Config config,
                   std::shared_ptr<AwsCredentialChain> credentials,
                   std::shared_ptr<ObjectStoreCounters> counters)
    : config_(std::move(config)),
      credentials_(std::move(credentials)),
      pool_(HttpOptions{config_.verify_tls, config_.ca_bundle,
                        config_.stall_timeout, 10},
            std::move(counters)) {
  std::string ep = config_.endpoint;
  if (ep.empty())
    ep = absl::StrCat("https://s3.", config_.region, ".amazonaws.com");
  size_t scheme_end = ep.find("://");
  scheme_ =
      scheme_end == std::string::npos ? "https" : ep.substr(0, scheme_end);
  host_ = scheme_end == std::string::npos ? ep : ep.substr(scheme_end + 3);
  while (!host_.empty() && host_.back() == '/') host_.pop_back();
  path_style_ =
      config_.addressing == S3Addressing::kPath ||
      (config_.addressing == S3Addressing::kAuto && IsIpOrLocal(host_));
}

std::string S3Client::Endpoint() const {
  return absl::StrCat(scheme_, "://", host_);
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
  if (config_.payload_signing == PayloadSigning::kSigned ||
      call.body == nullptr) {
    payload = call.body ? Sha256Hex(call.body, call.body_len) : kEmptySha256;
  }
  auto make = [&] {
    SigV4Request sr{std::string(MethodName(call.method)),
                    host,
                    path,
                    call.query,
                    call.headers,
                    payload};
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
    req.max_body = call.max_body;
    return req;
  };
  // CompleteMultipartUpload may answer 200 with an <Error> in the body.
  auto failed = [&](const HttpResponse& rep) {
    return rep.status < 200 || rep.status >= 300 ||
           (call.error_in_200 && rep.body.find("<Error>") != std::string::npos);
  };
  auto sent = SendWithRetries(
      pool_, config_.max_attempts, make, [&](const HttpResponse& rep) {
        if (!failed(rep)) return Verdict::kDone;
        const CodeMeans code = Means(XmlValue(rep.body, "Code"));
        // A 503 without a body (a HEAD's, which has none) is S3's SlowDown.
        if (code == CodeMeans::kThrottled || rep.status == 429 ||
            (rep.status == 503 && rep.body.empty())) {
          return Verdict::kThrottled;
        }
        return Retryable(rep, code) ? Verdict::kRetry : Verdict::kFail;
      });
  if (sent.ok) return std::move(sent.rep);
  const HttpResponse& rep = sent.rep;
  const std::string message = XmlValue(rep.body, "Message");
  // The server's words may echo the request's headers (a session token).
  std::string msg = ScrubSecrets(absl::StrCat(
      std::string(MethodName(call.method)), " s3://", call.bucket, "/",
      call.key, ": ",
      FailureDetail(rep, absl::StrCat(scheme_, "://", host),
                    absl::StrCat(XmlValue(rep.body, "Code"),
                                 message.empty() ? "" : ": ", message)),
      AfterAttempts(sent.attempts)));
  return S3Failure(rep, msg);
}

}  // namespace ckpt
