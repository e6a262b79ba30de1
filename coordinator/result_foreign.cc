#include "coordinator/result_foreign.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/text.h"
#include "coordinator/workload_registry.h"

namespace ckpt {

size_t DepthOf(const nlohmann::ordered_json& v, size_t limit) {
  std::vector<std::pair<const nlohmann::ordered_json*, size_t>> todo = {
      {&v, 1}};
  size_t deepest = 0;
  while (!todo.empty()) {
    auto [at, depth] = todo.back();
    todo.pop_back();
    deepest = std::max(deepest, depth);
    if (deepest > limit) return deepest;
    if (at->is_structured()) {
      for (const auto& child : *at) todo.emplace_back(&child, depth + 1);
    }
  }
  return deepest;
}

void ReadForeign(const Fields& f, absl::Span<const std::string_view> known,
                 const WorkloadRegistry& registry, bool run_object,
                 std::string* workload, ForeignParts* out) {
  const nlohmann::ordered_json& obj = f.value();
  if (!f.status()->ok() || !obj.is_object()) return;
  auto w = obj.find("workload");
  if (w != obj.end() && w->is_string()) {
    const std::string name = w->get<std::string>();
    if (name.empty() || name.size() > kMaxForeignName) {
      const std::string want =
          absl::StrCat("a workload's name of 1 to ", kMaxForeignName, " bytes");
      return f.Fail(f.Path("workload"), want.c_str(), *w);
    }
    *workload = name;
    if (!registry.Has(name)) out->workload = name;
  } else if (w != obj.end() && !w->is_null()) {
    const std::string want =
        absl::StrCat("one of ", absl::StrJoin(registry.Names(), ", "));
    return f.Fail(f.Path("workload"), want.c_str(), *w);
  }
  std::vector<std::string> pending;  // foreign, no known member after yet
  for (const auto& [key, value] : obj.items()) {
    if (value.is_null()) continue;  // as absent, as Fields reads it
    if (std::find(known.begin(), known.end(), key) != known.end() ||
        (run_object ? registry.SectionCodec(key)
                    : registry.RoundSectionCodec(key)) != nullptr) {
      for (std::string& name : pending) out->before[std::move(name)] = key;
      pending.clear();
      continue;
    }
    if (out->sections.size() == kMaxForeignSections ||
        key.size() > kMaxForeignName) {
      const std::string want =
          absl::StrCat("at most ", kMaxForeignSections,
                       " members this build does not read, each named in at "
                       "most ",
                       kMaxForeignName, " bytes");
      return f.Fail(f.Path(EscapeForTerminal(key.substr(0, kMaxForeignName))),
                    want.c_str(), value);
    }
    if (DepthOf(value, kMaxForeignDepth) > kMaxForeignDepth) {
      const std::string want =
          absl::StrCat("a member nested at most ", kMaxForeignDepth, " deep");
      return f.Fail(f.Path(EscapeForTerminal(key)), want.c_str(), value);
    }
    out->sections.emplace_back(key, value.dump());
    pending.push_back(key);
  }
}

void WriteForeign(const ForeignParts& foreign, nlohmann::ordered_json* j) {
  if (foreign.sections.empty() || !j->is_object()) return;
  // Each section, by the member it goes before ("": at the end).
  std::map<std::string, std::vector<size_t>, std::less<>> at;
  for (size_t i = 0; i < foreign.sections.size(); ++i) {
    const std::string& name = foreign.sections[i].first;
    if (j->contains(name)) continue;  // this build's own wins
    auto b = foreign.before.find(name);
    const bool placed = b != foreign.before.end() && j->contains(b->second);
    at[placed ? b->second : std::string()].push_back(i);
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  auto add = [&](std::string_view member) {
    auto it = at.find(member);
    if (it == at.end()) return;
    for (size_t i : it->second) {
      const auto& [name, text] = foreign.sections[i];
      nlohmann::ordered_json v = nlohmann::ordered_json::parse(
          text, nullptr, /*allow_exceptions=*/false);
      if (!v.is_discarded()) out[name] = std::move(v);
    }
  };
  for (auto& [key, value] : j->items()) {
    add(key);
    out[key] = std::move(value);
  }
  add("");
  *j = std::move(out);
}

std::string DescribeForeign(const ForeignParts& foreign) {
  if (foreign.empty()) return "";
  std::vector<std::string> parts;
  if (!foreign.workload.empty()) {
    parts.push_back(absl::StrCat("workload '",
                                 EscapeForTerminal(foreign.workload),
                                 "' (unknown to this build)"));
  }
  if (!foreign.sections.empty()) {
    std::vector<std::string> names;
    for (const auto& [name, text] : foreign.sections) {
      names.push_back(EscapeForTerminal(name));
    }
    parts.push_back(absl::StrCat("sections carried through unread: ",
                                 absl::StrJoin(names, ", ")));
  }
  return absl::StrJoin(parts, "; ");
}

std::vector<std::string> ForeignLines(const RunResult& r) {
  std::vector<std::string> lines;
  if (!r.foreign.empty()) lines.push_back(DescribeForeign(r.foreign));
  size_t rounds = 0;
  for (size_t i = 0; i < r.rounds.size(); ++i) {
    if (r.rounds[i].foreign.empty()) continue;
    if (++rounds <= kMaxForeignRoundLines) {
      lines.push_back(absl::StrCat("round ", i + 1, " of rounds[]: ",
                                   DescribeForeign(r.rounds[i].foreign)));
    }
  }
  if (rounds > kMaxForeignRoundLines) {
    lines.push_back(absl::StrCat(rounds - kMaxForeignRoundLines,
                                 " more round(s) with parts not read"));
  }
  return lines;
}

}  // namespace ckpt
