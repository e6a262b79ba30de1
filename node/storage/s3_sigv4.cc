#include "node/storage/s3_sigv4.h"

#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/clock.h"

namespace ckpt {
namespace {

std::string Hex(const unsigned char* p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = kDigits[p[i] >> 4];
    s[2 * i + 1] = kDigits[p[i] & 15];
  }
  return s;
}

std::string Hmac(const std::string& key, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
       &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

// Lowercase name; value trimmed with inner runs of spaces collapsed.
std::string CanonicalValue(const std::string& v) {
  std::string out;
  bool space = false;
  for (char c : absl::StripAsciiWhitespace(v)) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

std::string Sha256Hex(const void* data, size_t len) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(static_cast<const unsigned char*>(data), len, md);
  return Hex(md, sizeof(md));
}

std::string AmzDateNow() { return FormatUtcNow("%Y%m%dT%H%M%SZ"); }

SigV4Signed SignV4(const SigV4Request& req, const AwsCredentials& creds,
                   const std::string& region, const std::string& amz_date,
                   const std::string& service) {
  SigV4Signed out;
  out.path =
      UriEncode(req.path.empty() ? "/" : req.path, /*encode_slash=*/false);

  std::vector<std::pair<std::string, std::string>> q;
  for (const auto& [k, v] : req.query) {
    q.push_back({UriEncode(k, true), UriEncode(v, true)});
  }
  std::sort(q.begin(), q.end());
  std::vector<std::string> qparts;
  for (const auto& [k, v] : q) qparts.push_back(absl::StrCat(k, "=", v));
  out.query = absl::StrJoin(qparts, "&");

  HeaderList send = req.headers;
  send.push_back({"host", req.host});
  send.push_back({"x-amz-content-sha256", req.payload_hash});
  send.push_back({"x-amz-date", amz_date});
  if (!creds.session_token.empty()) {
    send.push_back({"x-amz-security-token", creds.session_token});
  }
  std::vector<std::pair<std::string, std::string>> canon;
  for (const auto& [k, v] : send) {
    canon.push_back({absl::AsciiStrToLower(k), CanonicalValue(v)});
  }
  std::sort(canon.begin(), canon.end());
  std::string canonical_headers, signed_headers;
  for (size_t i = 0; i < canon.size(); ++i) {
    // Repeated names are comma-joined.
    if (i > 0 && canon[i].first == canon[i - 1].first) {
      canonical_headers.pop_back();  // the '\n'
      absl::StrAppend(&canonical_headers, ",", canon[i].second, "\n");
      continue;
    }
    absl::StrAppend(&canonical_headers, canon[i].first, ":", canon[i].second,
                    "\n");
    absl::StrAppend(&signed_headers, signed_headers.empty() ? "" : ";",
                    canon[i].first);
  }
  out.canonical_request = absl::StrCat(req.method, "\n", out.path, "\n",
                                       out.query, "\n", canonical_headers, "\n",
                                       signed_headers, "\n", req.payload_hash);
  const std::string date = amz_date.substr(0, 8);
  const std::string scope =
      absl::StrCat(date, "/", region, "/", service, "/aws4_request");
  out.string_to_sign = absl::StrCat(
      "AWS4-HMAC-SHA256\n", amz_date, "\n", scope, "\n",
      Sha256Hex(out.canonical_request.data(), out.canonical_request.size()));
  std::string k = Hmac("AWS4" + creds.secret_key, date);
  k = Hmac(k, region);
  k = Hmac(k, service);
  k = Hmac(k, "aws4_request");
  std::string sig = Hmac(k, out.string_to_sign);
  out.signature =
      Hex(reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
  out.headers = send;
  out.headers.push_back(
      {"Authorization",
       absl::StrCat("AWS4-HMAC-SHA256 Credential=", creds.access_key, "/",
                    scope, ", SignedHeaders=", signed_headers,
                    ", Signature=", out.signature)});
  return out;
}

}  // namespace ckpt
