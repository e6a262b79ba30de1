#include "common/experiment.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/config.h"
#include "common/config_keys.h"
#include "common/status_macros.h"

namespace ckpt {
namespace {

constexpr char kDefaults[] = "defaults.";
constexpr char kSweep[] = "sweep.";
constexpr char kSmoke[] = "smoke.";
constexpr uint64_t kMaxSweepPoints = 100000;

// An unknown key at `where`, with groups and "repeat" among the suggestions.
std::string UnknownKey(const std::string& where, const std::string& key,
                       const Experiment& e) {
  std::vector<std::string> extra = {"repeat", "prepare", "smoke"};
  for (const auto& g : e.groups) extra.push_back(g.group);
  return absl::StrCat(where, ": ", UnknownKeyMessage(key, extra));
}

const Experiment::Group* FindGroup(const Experiment& e,
                                   const std::string& name) {
  for (const auto& g : e.groups) {
    if (g.group == name) return &g;
  }
  return nullptr;
}

absl::StatusOr<int> ParseRepeat(const std::string& where,
                                const std::string& value) {
  int n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < 1 || n > 1000) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": repeat = '", value, "': expected a whole number 1..1000"));
  }
  return n;
}

// A name, not a path: letters, digits, '-', '_' and '.', not starting
// with '.' (no "..", no hidden file).
bool IsPlainName(const std::string& name) {
  bool ok = !name.empty() && name[0] != '.';
  for (char c : name)
    ok &= std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
          c == '.';
  return ok;
}

// A group and its option name a directory beside the experiment and a file
// in it: names, never paths ("- /abs/dir: opt" read /abs/dir/opt.yaml).
absl::Status CheckOption(const std::string& where, const std::string& group,
                         const std::string& option) {
  if (!IsPlainName(group)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": defaults: group '", group,
        "': expected the name of a directory beside the experiment "
        "(letters, digits, '-', '_', '.'), not a path"));
  }
  if (IsPlainName(option)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": ", group, " = '", option,
                   "': expected the name of a file in the ", group,
                   "/ group (letters, digits, '-', '_', '.')"));
}

std::string GroupFile(const Experiment& e, const std::string& group,
                      const std::string& option) {
  std::filesystem::path dir = std::filesystem::path(e.path).parent_path();
  return (dir / group / (option + ".yaml")).string();
}

// Reads a group file's keys; each must be a configuration key.
absl::StatusOr<std::vector<SourcedValue>> GroupValues(
    const Experiment& e, const std::string& group, const std::string& option,
    const std::string& where) {
  RETURN_IF_ERROR(CheckOption(where, group, option));
  std::string file = GroupFile(e, group, option);
  if (!std::filesystem::exists(file)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", group, " = '", option, "': no file ", file));
  }
  ASSIGN_OR_RETURN(auto entries, ReadYamlFile(file, "group file"));
  std::vector<SourcedValue> out;
  for (const auto& entry : entries) {
    std::string at = absl::StrCat(file, ":", entry.line);
    if (FindKey(entry.key) == nullptr) {
      return absl::InvalidArgumentError(UnknownKey(at, entry.key, e));
    }
    if (entry.list || entry.in_list) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": key '", entry.key,
                       "': expected a single value, found a list (sweeps "
                       "belong in the experiment file)"));
    }
    out.push_back({entry.key, entry.value, at});
  }
  return out;
}

// Adds or replaces (same canonical key) a parameter.
absl::Status AddParam(Experiment& e, const std::string& name,
                      std::vector<std::string> values,
                      const std::string& where) {
  SweepParam p;
  p.name = name;
  p.where = where;
  if (const Experiment::Group* g = FindGroup(e, name)) {
    p.group = true;
    p.canonical = g->group;
    for (const auto& v : values) RETURN_IF_ERROR(CheckOption(where, name, v));
  } else if (const KeyDef* def = FindKey(name)) {
    p.canonical = def->key;
  } else {
    return absl::InvalidArgumentError(UnknownKey(where, name, e));
  }
  if (values.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": sweep of '", name, "': expected values"));
  }
  std::set<std::string> seen;
  for (const auto& v : values) {
    if (!seen.insert(v).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": sweep of '", name, "': value '", v, "' given twice"));
    }
  }
  p.values = std::move(values);
  for (auto& q : e.params) {
    if (q.canonical == p.canonical) {
      q = std::move(p);
      return absl::OkStatus();
    }
  }
  e.params.push_back(std::move(p));
  return absl::OkStatus();
}

std::vector<std::string> SplitValues(const std::string& v) {
  std::vector<std::string> out;
  for (absl::string_view s : absl::StrSplit(v, ',')) {
    out.emplace_back(absl::StripAsciiWhitespace(s));
  }
  return out;
}

// Characters kept in a run's directory name; others become '_'.
std::string PathSafe(const std::string& s) {
  std::string out;
  for (char c : s) {
    bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
                c == '-' || c == '_' || c == '=' || c == ',' || c == '+' ||
                c == '@';
    out += keep ? c : '_';
  }
  if (out.size() > 160) out.resize(160);
  return out;
}

// Smoke: entries, (key, values, where), applied after the file's.
using SmokeEntries =
    std::vector<std::tuple<std::string, std::vector<std::string>, std::string>>;

// The file's defaults: groups, first: sweep keys and overrides may name them.
absl::Status ReadGroups(const std::string& path,
                        const std::vector<YamlEntry>& entries, Experiment& e) {
  for (const auto& entry : entries) {
    if (entry.key.rfind(kDefaults, 0) != 0) continue;
    std::string where = absl::StrCat(path, ":", entry.line);
    std::string group = entry.key.substr(sizeof(kDefaults) - 1);
    if (group.empty() || group.find('.') != std::string::npos || entry.list) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": defaults: expected '- GROUP: OPTION' entries, found '",
          entry.key, "'"));
    }
    if (FindGroup(e, group) != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": defaults: group '", group, "' given twice"));
    }
    RETURN_IF_ERROR(CheckOption(where, group, entry.value));
    e.groups.push_back({group, entry.value, where});
  }
  return absl::OkStatus();
}

// `prepare: W`: W a workload whose choice says what it prepares for the
// points (common/config_keys.h, WorkloadChoice::prepares).
absl::Status CheckPrepare(const std::string& where, const std::string& value) {
  std::vector<std::string> said;
  for (const WorkloadChoice& w : WorkloadChoices()) {
    if (w.prepares.empty()) continue;
    if (w.name == value) return absl::OkStatus();
    said.push_back(absl::StrCat(w.name, " (", w.prepares, ")"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": prepare = '", value, "': expected ",
                   absl::StrJoin(said, ", "), ", or no prepare: key"));
}

// The file's other keys: name, description, prepare, repeat, sweep:, smoke:
// (kept in `smokes`) and fixed values.
absl::Status ReadKeys(const std::string& path,
                      const std::vector<YamlEntry>& entries, Experiment& e,
                      SmokeEntries* smokes) {
  for (const auto& entry : entries) {
    std::string where = absl::StrCat(path, ":", entry.line);
    const std::string& key = entry.key;
    if (key.rfind(kDefaults, 0) == 0) continue;
    if (entry.in_list) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": key '", key,
          "': expected a single value, found a list (only defaults: is a "
          "list of maps)"));
    }
    if (key == "name" || key == "description") {
      (key == "name" ? e.name : e.description) = entry.value;
    } else if (key == "prepare") {
      RETURN_IF_ERROR(CheckPrepare(where, entry.value));
      e.prepare = entry.value;
    } else if (key.rfind(kSmoke, 0) == 0) {
      smokes->emplace_back(key.substr(sizeof(kSmoke) - 1),
                           entry.list ? entry.items : SplitValues(entry.value),
                           absl::StrCat(where, " (smoke)"));
    } else if (key == "repeat") {
      ASSIGN_OR_RETURN(e.repeat, ParseRepeat(where, entry.value));
    } else if (key.rfind(kSweep, 0) == 0) {
      std::vector<std::string> values =
          entry.list ? entry.items : SplitValues(entry.value);
      RETURN_IF_ERROR(AddParam(e, key.substr(sizeof(kSweep) - 1),
                               std::move(values), where));
    } else if (FindKey(key) == nullptr) {
      return absl::InvalidArgumentError(UnknownKey(where, key, e));
    } else if (entry.list) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": key '", key,
          "': expected a single value, found a list (to sweep it, put it "
          "under sweep:)"));
    } else {
      e.values.push_back({key, entry.value, where});
    }
  }
  return absl::OkStatus();
}

// --smoke's entries, then the command line's key=value sweeps, each
// replacing the file's sweep of that key.
absl::Status ApplySmokeAndOverrides(const std::string& path, bool smoke,
                                    SmokeEntries smokes,
                                    const std::vector<std::string>& overrides,
                                    Experiment& e) {
  if (smoke && smokes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": --smoke, and the file has no smoke: entries"));
  }
  for (auto& [key, values, where] : smoke ? smokes : decltype(smokes){}) {
    if (key == "repeat") {
      ASSIGN_OR_RETURN(e.repeat,
                       ParseRepeat(where, absl::StrJoin(values, ",")));
      continue;
    }
    RETURN_IF_ERROR(AddParam(e, key, std::move(values), where));
  }
  for (const auto& o : overrides) {
    size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "command line: '", o, "': expected key=value or key=a,b,c"));
    }
    std::string key = o.substr(0, eq), value = o.substr(eq + 1);
    if (key == "repeat") {
      ASSIGN_OR_RETURN(e.repeat, ParseRepeat("command line", value));
      continue;
    }
    RETURN_IF_ERROR(AddParam(e, key, SplitValues(value), "command line"));
  }
  return absl::OkStatus();
}

// The sweep's size, and every group option it names, checked.
absl::Status CheckSweep(const std::string& path, const Experiment& e) {
  // A product too large to run (and to count in an int) is refused.
  uint64_t points = 1;
  for (const auto& p : e.params) {
    points *= std::max<uint64_t>(1, p.values.size());
    if (points > kMaxSweepPoints) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": the sweep's product has more than ",
                       kMaxSweepPoints, " points (at ", p.where, ", ", p.name,
                       "); expected fewer values or fewer swept keys"));
    }
  }
  // Every group option named anywhere must have its file and valid keys.
  for (const auto& g : e.groups) {
    std::set<std::string> options = {g.option};
    for (const auto& p : e.params) {
      if (p.canonical == g.group) options = {p.values.begin(), p.values.end()};
    }
    for (const auto& option : options) {
      RETURN_IF_ERROR(GroupValues(e, g.group, option, g.where).status());
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Experiment> LoadExperiment(
    const std::string& path, const std::vector<std::string>& overrides,
    bool smoke) {
  Experiment e;
  e.path = path;
  e.name = std::filesystem::path(path).stem().string();
  ASSIGN_OR_RETURN(auto entries, ReadYamlFile(path, "experiment"));
  RETURN_IF_ERROR(ReadGroups(path, entries, e));
  SmokeEntries smokes;
  RETURN_IF_ERROR(ReadKeys(path, entries, e, &smokes));
  RETURN_IF_ERROR(
      ApplySmokeAndOverrides(path, smoke, std::move(smokes), overrides, e));
  RETURN_IF_ERROR(CheckSweep(path, e));
  return e;
}

int PointCount(const Experiment& e) {
  int n = 1;
  for (const auto& p : e.params) n *= static_cast<int>(p.values.size());
  return n;
}

std::vector<SweepRun> ExpandRuns(const Experiment& e) {
  const int points = PointCount(e);
  std::vector<SweepRun> runs;
  for (int pass = 1; pass <= e.repeat; ++pass) {
    for (int point = 0; point < points; ++point) {
      SweepRun run;
      run.index = static_cast<int>(runs.size());
      run.point = point;
      run.repeat = pass;
      // Mixed radix, last parameter fastest.
      std::vector<std::string> named;
      int rest = point;
      std::vector<size_t> digit(e.params.size());
      for (size_t i = e.params.size(); i-- > 0;) {
        int n = static_cast<int>(e.params[i].values.size());
        digit[i] = static_cast<size_t>(rest % n);
        rest /= n;
      }
      for (size_t i = 0; i < e.params.size(); ++i) {
        const SweepParam& p = e.params[i];
        run.values.emplace_back(p.name, p.values[digit[i]]);
        if (p.values.size() > 1) {
          named.push_back(absl::StrCat(p.name, "=", p.values[digit[i]]));
        }
      }
      run.point_name = absl::StrJoin(named, ",");
      if (e.repeat > 1) named.push_back(absl::StrCat("repeat=", pass));
      run.name = absl::StrFormat("%03d", run.index);
      if (!named.empty()) {
        absl::StrAppend(&run.name, "-", PathSafe(absl::StrJoin(named, ",")));
      }
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

absl::StatusOr<LoadOptions> RunLoadOptions(const Experiment& e,
                                           const SweepRun& run) {
  LoadOptions opts;
  for (const auto& g : e.groups) {
    std::string option = g.option, where = g.where;
    for (size_t i = 0; i < e.params.size(); ++i) {
      if (e.params[i].canonical == g.group) {
        option = run.values[i].second;
        where = e.params[i].where;
      }
    }
    ASSIGN_OR_RETURN(auto values, GroupValues(e, g.group, option, where));
    for (auto& v : values) opts.file_values.push_back(std::move(v));
  }
  for (const auto& v : e.values) opts.file_values.push_back(v);
  for (size_t i = 0; i < e.params.size(); ++i) {
    const SweepParam& p = e.params[i];
    if (p.group) continue;
    std::string where =
        p.values.size() > 1 ? absl::StrCat(p.where, " (sweep)") : p.where;
    opts.final_values.push_back({p.name, run.values[i].second, where});
  }
  return opts;
}

}  // namespace ckpt
