#include "common/storage_uri.h"

#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace ckpt {

std::string ForNode(const std::string& uri, int node) {
  std::string out = uri;
  const std::string token = "{node}";
  for (size_t at = out.find(token); at != std::string::npos;
       at = out.find(token, at)) {
    out.replace(at, token.size(), std::to_string(node));
  }
  return out;
}

bool IsObjectStoreUri(const std::string& uri) {
  return uri.rfind("s3://", 0) == 0 || uri.rfind("gs://", 0) == 0;
}

namespace {

// A name under .invalid, the top-level domain RFC 2606 reserves for names
// that are never valid: the manifests' placeholders (deploy/k8s) use it, so
// a run not yet pointed at real storage stops before any round, naming the
// setting, instead of asking a name that cannot resolve (or, for a bucket
// such as my-bucket, someone else's).
bool IsPlaceholderName(std::string name) {
  while (!name.empty() && name.back() == '.') name.pop_back();
  name = absl::AsciiStrToLower(name);
  return name == "invalid" || absl::EndsWith(name, ".invalid");
}

absl::Status PlaceholderError(const std::string& key, const std::string& v,
                              const std::string& expected) {
  return absl::InvalidArgumentError(absl::StrCat(
      key, " = '", v,
      "' is a placeholder (a name under .invalid, which RFC 2606 reserves for "
      "names that never resolve): expected ",
      expected));
}

// The host of an endpoint URL (scheme://[user@]host[:port][/...]).
std::string UrlHost(const std::string& url) {
  size_t at = url.find("://");
  std::string rest = at == std::string::npos ? url : url.substr(at + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t user = rest.rfind('@'); user != std::string::npos) {
    rest = rest.substr(user + 1);
  }
  if (!rest.empty() && rest[0] == '[') return rest;  // an IPv6 literal
  return rest.substr(0, rest.find(':'));
}

}  // namespace

absl::Status CheckEndpoint(const std::string& key, const std::string& v) {
  if (!v.empty() && IsPlaceholderName(UrlHost(v))) {
    return PlaceholderError(key, v, "your server's URL");
  }
  return absl::OkStatus();
}

absl::Status CheckStorageUri(const std::string& name, const std::string& v) {
  if (IsObjectStoreUri(v)) {
    const std::string scheme = v.substr(0, 5), rest = v.substr(5);
    if (rest.empty() || rest[0] == '/') {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " = '", v, "': no bucket name; expected ", scheme,
                       "BUCKET/PREFIX (or ", scheme, "BUCKET)"));
    }
    if (IsPlaceholderName(rest.substr(0, rest.find('/')))) {
      return PlaceholderError(name, v,
                              absl::StrCat(scheme, "YOUR-BUCKET/PREFIX"));
    }
    return absl::OkStatus();
  }
  if (v.rfind("file://", 0) == 0) {
    const std::string rest = v.substr(7);
    if (rest.empty() || rest[0] != '/') {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " = '", v,
          "': a file URI with a host (or no path) is not supported; expected "
          "file:///ABSOLUTE/PATH or a plain path"));
    }
  }
  return absl::OkStatus();
}

namespace {

// "s3://b/p" stays; a path or file:// URI is made absolute and folded.
std::string Normalized(const std::string& where) {
  std::string p = where;
  if (p.rfind("file://", 0) == 0) p = p.substr(7);
  if (p.find("://") == std::string::npos) {
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(p, ec);
    if (!ec) p = abs.lexically_normal().string();
  }
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

}  // namespace

bool LocationsOverlap(const std::string& a_in, const std::string& b_in) {
  const std::string a = Normalized(a_in), b = Normalized(b_in);
  if (a == b) return true;
  auto holds = [](const std::string& outer, const std::string& inner) {
    return inner.size() > outer.size() && inner.rfind(outer, 0) == 0 &&
           (outer.back() == '/' || inner[outer.size()] == '/');
  };
  return holds(a, b) || holds(b, a);
}

}  // namespace ckpt
