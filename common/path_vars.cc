#include "common/path_vars.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "common/names.h"
#include "common/text.h"

namespace ckpt {
namespace {

bool IsNameChar(char c, bool first) {
  return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (!first && c >= '0' && c <= '9');
}

bool IsComponentChar(char c) {
  return c == '.' || c == '_' || c == '-' || (c >= 'A' && c <= 'Z') ||
         (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

constexpr size_t kMaxValue = 253;  // a Kubernetes object name at most

}  // namespace

absl::StatusOr<std::string> ExpandPathVars(std::string_view path,
                                           std::string_view what_view) {
  const std::string what(what_view);
  std::string out;
  size_t i = 0;
  while (i < path.size()) {
    if (path.compare(i, 2, "${") != 0) {
      out += path[i++];
      continue;
    }
    const size_t close = path.find('}', i + 2);
    const std::string name(path.substr(
        i + 2, close == std::string_view::npos ? 0 : close - i - 2));
    bool valid = close != std::string_view::npos && !name.empty();
    for (size_t k = 0; valid && k < name.size(); ++k) {
      valid = IsNameChar(name[k], k == 0);
    }
    if (!valid) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " ", EscapeForTerminal(path), ": expected ${NAME} (NAME: ",
          "letters, digits and '_') at character ", i + 1));
    }
    const char* value = std::getenv(name.c_str());
    if (value == nullptr || *value == '\0') {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " ", EscapeForTerminal(path), ": the environment variable ",
          name, " it names is ", value == nullptr ? "not set" : "empty"));
    }
    std::string_view v(value);
    bool component = v.size() <= kMaxValue && !IsDotName(v);
    for (char c : v) component = component && IsComponentChar(c);
    if (!component) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " ", EscapeForTerminal(path), ": ", name, " (", v.size(),
          " bytes) is not one path component: expected at most ", kMaxValue,
          " letters, digits, '.', '_' or '-', and not '.' or '..'"));
    }
    out += v;
    i = close + 1;
  }
  return out;
}

}  // namespace ckpt
