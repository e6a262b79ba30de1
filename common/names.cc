#include "common/names.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/text.h"

namespace ckpt {
namespace {

constexpr size_t kMaxNameBytes = 1024;

absl::Status Refuse(std::string_view name, const std::string& what,
                    const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " '", EscapeForTerminal(name.substr(0, 200)),
                   name.size() > 200 ? "...'" : "'", ": ", why,
                   "; expected a relative name inside its directory"));
}

}  // namespace

bool IsDotName(std::string_view name) { return name == "." || name == ".."; }

bool PathIsUnder(std::string_view path, std::string_view dir) {
  while (!dir.empty() && dir.back() == '/') dir.remove_suffix(1);
  if (dir.empty()) return true;
  if (path.substr(0, dir.size()) != dir) return false;
  return path.size() == dir.size() || path[dir.size()] == '/';
}

absl::Status CheckRelativeName(std::string_view name, const std::string& what) {
  if (name.empty()) return Refuse(name, what, "empty");
  if (name.size() > kMaxNameBytes) {
    return Refuse(
        name, what,
        absl::StrCat(name.size(), " bytes, more than ", kMaxNameBytes));
  }
  if (name.front() == '/') return Refuse(name, what, "absolute");
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) {
      return Refuse(name, what, "holds a control character");
    }
  }
  size_t begin = 0;
  while (begin <= name.size()) {
    size_t end = name.find('/', begin);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view part = name.substr(begin, end - begin);
    if (part.empty()) return Refuse(name, what, "an empty path component");
    if (IsDotName(part)) {
      return Refuse(name, what,
                    absl::StrCat("a '", std::string(part), "' component"));
    }
    begin = end + 1;
  }
  return absl::OkStatus();
}

absl::Status CheckEntryName(std::string_view name, const std::string& what) {
  // The component rules first: "../x" is refused for its "..".
  if (auto s = CheckRelativeName(name, what); !s.ok()) return s;
  if (name.find('/') != std::string_view::npos) {
    return Refuse(name, what, "holds a '/'");
  }
  return absl::OkStatus();
}

std::string WithDefaultPort(std::string_view address, int port) {
  std::string out(address);
  if (address.empty() || address.find("://") != std::string_view::npos ||
      address.find(":///") != std::string_view::npos) {
    return out;
  }
  const bool bracketed = address.front() == '[';
  if (bracketed ? address.back() == ']'
                : address.find(':') == std::string_view::npos) {
    out += ":" + std::to_string(port);
  }
  return out;
}

}  // namespace ckpt
