#include "common/step_layout.h"

#include <string_view>

#include "absl/strings/str_cat.h"

namespace ckpt {
namespace {

// The digits of "step-<digits>" without a leading zero, or "".
std::string_view StepDigits(const std::string& name) {
  if (name.rfind("step-", 0) != 0 || name.size() == 5) return {};
  std::string_view digits = std::string_view(name).substr(5);
  if (digits[0] == '0') return {};
  for (char c : digits) {
    if (c < '0' || c > '9') return {};
  }
  return digits;
}

}  // namespace

uint64_t ParseStepDir(const std::string& name) {
  const std::string_view digits = StepDigits(name);
  // 16 digits hold kMaxStep (9007199254740991); more never parse.
  if (digits.empty() || digits.size() > 16) return 0;
  uint64_t n = 0;
  for (char c : digits) n = n * 10 + static_cast<uint64_t>(c - '0');
  return n <= kMaxStep ? n : 0;
}

bool IsStepPastTheBound(const std::string& name) {
  return !StepDigits(name).empty() && ParseStepDir(name) == 0;
}

std::string StepDirName(uint64_t step) { return absl::StrCat("step-", step); }

std::string JoinPath(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  std::string out = a;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  size_t i = 0;
  while (i < b.size() && b[i] == '/') ++i;
  return out + "/" + b.substr(i);
}

}  // namespace ckpt
