#include "common/secrets.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <set>

namespace ckpt {
namespace {

struct Registry {
  std::mutex mu;
  std::set<std::string> values;
  // Every form of every value, longest first; replaced whole on each
  // registration so a scrub works on a snapshot without holding the lock.
  std::shared_ptr<const std::vector<std::string>> forms;
  std::atomic<bool> any{false};
};

Registry& TheRegistry() {
  static Registry* r = new Registry;
  return *r;
}

bool Unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~';
}

// Percent-encoding as URL, query and form encoders write it.
std::string UrlEncode(absl::string_view v, bool upper_hex, bool keep_slash,
                      bool plus_for_space) {
  const char* hex = upper_hex ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  for (unsigned char c : v) {
    if (Unreserved(c) || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else if (plus_for_space && c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// The inside of a JSON string holding `v`.
std::string JsonEscape(absl::string_view v, bool escape_slash) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : v) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '/':
        out += escape_slash ? "\\/" : "/";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string XmlEscape(absl::string_view v) {
  std::string out;
  for (char c : v) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> SecretForms(absl::string_view value) {
  std::set<std::string> forms = {std::string(value)};
  for (bool upper : {true, false}) {
    for (bool keep_slash : {false, true}) {
      for (bool plus : {false, true}) {
        forms.insert(UrlEncode(value, upper, keep_slash, plus));
      }
    }
  }
  forms.insert(JsonEscape(value, false));
  forms.insert(JsonEscape(value, true));
  forms.insert(XmlEscape(value));
  return {forms.begin(), forms.end()};
}

void RegisterSecret(absl::string_view value) {
  if (value.size() < kMinSecretLength) return;
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.values.insert(std::string(value)).second) return;
  auto forms = std::make_shared<std::vector<std::string>>();
  if (r.forms) *forms = *r.forms;
  for (auto& f : SecretForms(value)) {
    if (std::find(forms->begin(), forms->end(), f) == forms->end()) {
      forms->push_back(std::move(f));
    }
  }
  std::sort(forms->begin(), forms->end(),
            [](const std::string& a, const std::string& b) {
              return a.size() > b.size();
            });
  r.forms = std::move(forms);
  r.any.store(true, std::memory_order_release);
}

std::string ScrubSecrets(absl::string_view text) {
  Registry& r = TheRegistry();
  if (!r.any.load(std::memory_order_acquire) || text.empty()) {
    return std::string(text);
  }
  std::shared_ptr<const std::vector<std::string>> forms;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    forms = r.forms;
  }
  if (!forms) return std::string(text);
  // Marks every byte inside an occurrence of any form (overlapping ones
  // too), then writes each marked run as one marker.
  std::vector<bool> secret(text.size(), false);
  bool found = false;
  for (const std::string& f : *forms) {
    for (size_t at = text.find(f); at != absl::string_view::npos;
         at = text.find(f, at + 1)) {
      std::fill(secret.begin() + static_cast<ptrdiff_t>(at),
                secret.begin() + static_cast<ptrdiff_t>(at + f.size()), true);
      found = true;
    }
  }
  if (!found) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (!secret[i]) {
      out += text[i++];
      continue;
    }
    out += kRedacted;
    while (i < text.size() && secret[i]) ++i;
  }
  return out;
}

void ClearSecretsForTesting() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.values.clear();
  r.forms.reset();
  r.any.store(false, std::memory_order_release);
}

}  // namespace ckpt
