#include "tests/testing/conditional_put_proxy.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "node/storage/s3_sigv4.h"
#include "tests/testing/http_wire.h"

namespace ckpt {
namespace {

std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(s[i + 1]) &&
        std::isxdigit(s[i + 2])) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Header lines of a request head (request line dropped), names lowercased.
HeaderList HeadersOf(const std::string& head) {
  HeaderList out;
  size_t at = head.find("\r\n");
  while (at != std::string::npos) {
    size_t end = head.find("\r\n", at + 2);
    if (end == std::string::npos || end == at + 2) break;
    std::string line = head.substr(at + 2, end - at - 2);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      out.push_back(
          {absl::AsciiStrToLower(line.substr(0, colon)),
           std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)))});
    }
    at = end;
  }
  return out;
}

std::string Value(const HeaderList& h, const std::string& name) {
  for (const auto& [k, v] : h)
    if (k == name) return v;
  return "";
}

}  // namespace

ConditionalPutProxy::ConditionalPutProxy(int upstream_port,
                                         std::string access_key,
                                         std::string secret_key, bool ignore)
    : upstream_port_(upstream_port),
      access_key_(std::move(access_key)),
      secret_key_(std::move(secret_key)),
      ignore_(ignore) {
  proxy_ = std::make_unique<FaultProxy>(
      upstream_port, [this](const ProxyRequest& r) { return Rule(r); });
}

int ConditionalPutProxy::refused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return refused_;
}

int ConditionalPutProxy::granted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return granted_;
}

bool ConditionalPutProxy::ExistsUpstream(const std::string& path) {
  const std::string host = "127.0.0.1:" + std::to_string(upstream_port_);
  SigV4Request sr{"HEAD", host, PercentDecode(path), {}, {}, kEmptySha256};
  SigV4Signed s = SignV4(sr, {access_key_, secret_key_, "", 0, "test"},
                         "us-east-1", AmzDateNow());
  std::string req = "HEAD " + s.path + " HTTP/1.1\r\n";
  for (const auto& [k, v] : s.headers) req += k + ": " + v + "\r\n";
  req += "Connection: close\r\n\r\n";
  int fd = ConnectLoopback(upstream_port_);
  if (fd < 0) return false;
  std::string buf, head;
  bool ok = SendAll(fd, req.data(), req.size()) && ReadHead(fd, buf, &head);
  close(fd);
  return ok && head.rfind("HTTP/1.1 200", 0) == 0;
}

Fault ConditionalPutProxy::Rule(const ProxyRequest& r) {
  const std::string path = r.target.substr(0, r.target.find('?'));
  Fault f;
  if (r.method == "DELETE") {
    std::lock_guard<std::mutex> lock(mu_);
    claimed_.erase(path);
    return f;
  }
  const HeaderList headers = HeadersOf(r.head);
  if (r.method != "PUT" || Value(headers, "if-none-match") != "*") return f;
  std::lock_guard<std::mutex> lock(mu_);  // one conditional PUT at a time
  if (!ignore_ && (claimed_.count(path) || ExistsUpstream(path))) {
    ++refused_;
    f.kind = FaultKind::kError;
    f.status = 412;
    f.code = "PreconditionFailed";
    return f;
  }
  claimed_.insert(path);
  ++granted_;
  // Forward without the header Swift refuses, signed anew: the headers the
  // client signed, less If-None-Match; the unsigned ones as they came.
  std::string signed_list = Value(headers, "authorization");
  signed_list = signed_list.substr(signed_list.find("SignedHeaders=") + 14);
  signed_list = signed_list.substr(0, signed_list.find(','));
  std::set<std::string> was_signed;
  for (auto n : absl::StrSplit(signed_list, ';'))
    was_signed.insert(std::string(n));
  const std::set<std::string> resigned = {"authorization",
                                          "host",
                                          "x-amz-date",
                                          "x-amz-content-sha256",
                                          "x-amz-security-token",
                                          "if-none-match",
                                          "expect"};
  SigV4Request sr;
  sr.method = "PUT";
  sr.host = Value(headers, "host");
  sr.path = PercentDecode(path);
  sr.payload_hash = Value(headers, "x-amz-content-sha256");
  if (r.target.find('?') != std::string::npos) {
    for (auto kv : absl::StrSplit(r.target.substr(r.target.find('?') + 1), '&',
                                  absl::SkipEmpty())) {
      std::string s(kv);
      size_t eq = s.find('=');
      sr.query.push_back(
          {PercentDecode(s.substr(0, eq)),
           eq == std::string::npos ? "" : PercentDecode(s.substr(eq + 1))});
    }
  }
  std::string unsigned_lines;
  for (const auto& [k, v] : headers) {
    if (resigned.count(k)) continue;
    if (was_signed.count(k)) {
      sr.headers.push_back({k, v});
    } else {
      unsigned_lines += k + ": " + v + "\r\n";
    }
  }
  SigV4Signed s = SignV4(sr, {access_key_, secret_key_, "", 0, "test"},
                         "us-east-1", AmzDateNow());
  std::string head = "PUT " + s.path + (s.query.empty() ? "" : "?") + s.query +
                     " HTTP/1.1\r\n";
  for (const auto& [k, v] : s.headers) head += k + ": " + v + "\r\n";
  head += unsigned_lines + "\r\n";
  f.forward_head = head;
  return f;
}

}  // namespace ckpt
