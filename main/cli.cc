#include "main/cli.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/config_keys.h"
#include "common/path_vars.h"
#include "common/text.h"

namespace ckpt {

namespace {

// The workloads with a command of their own (`ckptbench <name>`), in the
// key table's order.
std::vector<const WorkloadChoice*> WorkloadCommands() {
  std::vector<const WorkloadChoice*> out;
  for (const WorkloadChoice& w : WorkloadChoices()) {
    if (!w.usage.empty()) out.push_back(&w);
  }
  return out;
}

// Each workload command's lines in the usage: its name, then its lines.
std::string WorkloadUsage() {
  std::string out;
  for (const WorkloadChoice* w : WorkloadCommands()) {
    for (size_t i = 0; i < w->usage.size(); ++i) {
      absl::StrAppend(&out, "  ",
                      absl::StrFormat("%-12s ", i == 0 ? w->name : ""),
                      w->usage[i], "\n");
    }
  }
  return out;
}

// The names an experiment's prepare: takes ("datagen"), joined.
std::string Preparers() {
  std::vector<std::string> names;
  for (const WorkloadChoice& w : WorkloadChoices()) {
    if (!w.prepares.empty()) names.push_back(w.name);
  }
  return absl::StrJoin(names, " or ");
}

}  // namespace

std::string UsageText() {
  return absl::StrCat(R"(usage: ckptbench <command> [options] [key=value ...]

commands:
  run          single-node save/load benchmark (coordinator and node agent in
               one process); configured by --config, env vars and key=value
)",
                      WorkloadUsage(), R"(  sweep FILE [key=a,b,c ...]
               run an experiment file's sweep: every point of the product
               of its sweep: values, `repeat` times (points with NUM_NODES
               > 1 make this process the coordinator of the node agents);
               writes DIR/NNN-<values>/result.json, collated_results.json,
               results.csv and report.html (DIR: --results-dir, default
               multirun/<date>/<time>); --resume finishes an interrupted
               sweep, --dry-run validates and lists the runs, --smoke
               runs the file's seconds-long form (its smoke: entries)
  report DIR   write DIR/report.html from a sweep or run directory
  compare A B  the same points of two sweep or run directories side by
               side, with changes larger than the run-to-run spread flagged
  coordinator  multinode: serve node agents, drive the rounds, write results
               (same configuration sources as run; --listen HOST:PORT)
  node         multinode: a node agent; --coordinator HOST:PORT and
               --node-index I (or JOB_COMPLETION_INDEX / NODE_RANK / host ordinal)
  uploads s3://BUCKET/PREFIX [--abort]
               list the unfinished multipart uploads under a prefix (a
               step a killed run left); --abort aborts them
  plan      print the checkpoint plan (parameters, bytes, files), no I/O
  keys      list every configuration key, its env-var alias and meaning;
            --json: keys, every other env var read, commands and flags
  version   print the version

options:
  --config FILE       YAML configuration file (lowest precedence after
                      defaults; for sweeps the experiment file is the FILE)
  --results-dir DIR   write DIR/result.json (schema ckptbench.result/v1); a
                      run refuses to replace one that is there. run and
                      coordinator also take s3://BUCKET/PREFIX or
                      gs://BUCKET/PREFIX (written by node 0). ${VAR} in DIR
                      is the env var VAR (one path component)
  --overwrite         (run, coordinator) replace DIR/result.json if present
  --resume            (sweep) finish the runs --results-dir DIR lacks (a
                      DIR with no sweep yet: start it)
  --dry-run           (sweep) validate every point, list the runs and what
                      each prepare: )",
                      Preparers(), R"( writes (and whether it fits)
  --smoke             (sweep) the experiment's smoke: form (seconds long)
  --save-only         same as CKPT_MODE=save-only
  --load-only         same as CKPT_MODE=load-only
  --listen HOST:PORT  (coordinator) same as CKPT_LISTEN
  --coordinator H:P   (node) same as CKPT_COORDINATOR
  --node-index I      (node) same as CKPT_NODE_INDEX
  --per-rank          (plan) list every rank's files
  --list              (plan) list the model presets
  --abort             (uploads) abort the uploads listed
  -v, --verbose       debug logging
  -q, --quiet         no progress lines

precedence: key=value > environment > --config file > defaults.
Keys are dotted YAML names (run.num_save_calls) or env names (NUM_SAVE_CALLS).
example: CKPT_DIR_PATH=/mnt/ckpt ckptbench run NUM_LAYERS=20 --results-dir out
)");
}

const std::vector<std::string>& CliCommands() {
  static const std::vector<std::string>* kCommands = [] {
    auto* commands = new std::vector<std::string>{
        "run",  "sweep", "report",  "compare", "coordinator", "node",
        "plan", "keys",  "version", "help",    "uploads"};
    for (const WorkloadChoice* w : WorkloadCommands()) {
      commands->push_back(w->name);
    }
    return commands;
  }();
  return *kCommands;
}

const std::vector<FlagDef>& CliFlags() {
  // The commands' flags, the workload commands' flags, then the rest.
  static const std::vector<FlagDef>* kFlags = [] {
    auto* flags = new std::vector<FlagDef>{
        {"--config", true, "YAML configuration file"},
        {"--results-dir", true, "directory for result.json / the sweep"},
        {"--listen", true, "coordinator: control.listen"},
        {"--coordinator", true, "node: control.coordinator"},
        {"--node-index", true, "node: control.node_index"},
        {"--protocol-version", true, "node: for testing version refusal"},
        {"--save-only", false, "run.mode=save-only"},
        {"--load-only", false, "run.mode=load-only"},
        {"--resume", false, "sweep: finish the runs DIR lacks"},
        {"--overwrite", false, "run/coordinator: replace DIR/result.json"},
        {"--dry-run", false, "sweep: validate and list the runs"},
        {"--smoke", false, "sweep: the experiment file's smoke: form"},
        {"--per-rank", false, "plan: every rank's files"},
        {"--list", false, "plan: the model presets"},
        {"--abort", false, "uploads: abort the uploads listed"},
    };
    for (const WorkloadChoice* w : WorkloadCommands()) {
      for (const WorkloadFlag& f : w->flags) {
        flags->push_back({f.name, false, f.help});
      }
    }
    const FlagDef general[] = {
        {"--json", false, "keys: the machine-readable interface"},
        {"--verbose", false, "debug logging"},
        {"-v", false, "debug logging"},
        {"--quiet", false, "no progress lines"},
        {"-q", false, "no progress lines"},
        {"--help", false, "usage"},
        {"-h", false, "usage"},
    };
    flags->insert(flags->end(), std::begin(general), std::end(general));
    return flags;
  }();
  return *kFlags;
}

namespace {

constexpr const char* kHelpFlags[] = {"-h", "--help"};

using Apply = std::function<absl::Status(CliArgs&, const std::string&)>;

absl::Status SetFlag(bool CliArgs::*member, CliArgs& a) {
  a.*member = true;
  return absl::OkStatus();
}

// What each flag of CliFlags() does (a value flag gets its value).
const std::map<std::string, Apply>& FlagActions() {
  static const auto* kActions = [] {
    auto* m = new std::map<std::string, Apply>;
    auto on = [](bool CliArgs::*member) {
      return [member](CliArgs& a, const std::string&) {
        return SetFlag(member, a);
      };
    };
    auto key = [](const char* config_key) {
      return [config_key](CliArgs& a, const std::string& v) {
        a.overrides.push_back(absl::StrCat(config_key, "=", v));
        return absl::OkStatus();
      };
    };
    (*m)["--config"] = [](CliArgs& a, const std::string& v) {
      a.config_path = v;
      return absl::OkStatus();
    };
    (*m)["--results-dir"] = [](CliArgs& a, const std::string& v) {
      auto expanded = ExpandPathVars(v, "--results-dir");
      if (!expanded.ok()) return expanded.status();
      a.results_dir = *expanded;
      return absl::OkStatus();
    };
    (*m)["--protocol-version"] = [](CliArgs& a, const std::string& v) {
      if (!absl::SimpleAtoi(v, &a.protocol_version)) {
        return absl::InvalidArgumentError(
            "--protocol-version: expected a number");
      }
      return absl::OkStatus();
    };
    (*m)["--listen"] = key("control.listen");
    (*m)["--coordinator"] = key("control.coordinator");
    (*m)["--node-index"] = key("control.node_index");
    (*m)["--save-only"] = [](CliArgs& a, const std::string&) {
      a.overrides.push_back("run.mode=save-only");
      return absl::OkStatus();
    };
    (*m)["--load-only"] = [](CliArgs& a, const std::string&) {
      a.overrides.push_back("run.mode=load-only");
      return absl::OkStatus();
    };
    for (const WorkloadChoice* w : WorkloadCommands()) {
      for (const WorkloadFlag& f : w->flags) {
        (*m)[f.name] = [applies = f.applies](CliArgs& a, const std::string&) {
          a.overrides.push_back(applies);
          return absl::OkStatus();
        };
      }
    }
    (*m)["--resume"] = on(&CliArgs::resume);
    (*m)["--overwrite"] = on(&CliArgs::overwrite);
    (*m)["--dry-run"] = on(&CliArgs::dry_run);
    (*m)["--smoke"] = on(&CliArgs::smoke);
    (*m)["--json"] = on(&CliArgs::json);
    (*m)["--per-rank"] = on(&CliArgs::per_rank);
    (*m)["--list"] = on(&CliArgs::list);
    (*m)["--abort"] = on(&CliArgs::abort);
    (*m)["--verbose"] = (*m)["-v"] = on(&CliArgs::verbose);
    (*m)["--quiet"] = (*m)["-q"] = on(&CliArgs::quiet);
    for (const char* help : kHelpFlags) {
      (*m)[help] = [](CliArgs& a, const std::string&) {
        a.command = "help";
        return absl::OkStatus();
      };
    }
    return m;
  }();
  return *kActions;
}

// Commands that take positional arguments (sweep FILE, report DIR, ...).
constexpr const char* kPositional[] = {"sweep", "report", "compare", "uploads"};

absl::Status CheckCommand(const std::string& command) {
  const std::vector<std::string>& commands = CliCommands();
  if (std::find(commands.begin(), commands.end(), command) != commands.end()) {
    return absl::OkStatus();
  }
  std::string msg = absl::StrCat("unknown command '", command, "'");
  std::string near = ClosestMatch(command, commands);
  if (!near.empty()) absl::StrAppend(&msg, "; did you mean '", near, "'?");
  absl::StrAppend(&msg, " expected run, ");
  for (const WorkloadChoice* w : WorkloadCommands()) {
    absl::StrAppend(&msg, w->name, ", ");
  }
  absl::StrAppend(&msg,
                  "sweep, report, compare, coordinator, node, plan, keys or "
                  "version");
  return absl::InvalidArgumentError(msg);
}

// argv[*i], a flag ("--flag", "--flag=VALUE", or "--flag VALUE" for one
// that takes a value), applied to `a`.
absl::Status ApplyFlag(int argc, const char* const* argv, int* i, CliArgs& a) {
  const std::string arg = argv[*i];
  const size_t eq = arg.find('=');
  const std::string name = arg.substr(0, eq);
  const auto& flags = CliFlags();
  auto def = std::find_if(flags.begin(), flags.end(),
                          [&](const FlagDef& f) { return f.name == name; });
  if (def == flags.end() || (!def->takes_value && eq != std::string::npos)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown option '", arg, "' (ckptbench help lists them)"));
  }
  std::string value;
  if (def->takes_value) {
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (*i + 1 < argc) {
      value = argv[++*i];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": expected a value"));
    }
  }
  return FlagActions().at(name)(a, value);
}

}  // namespace

absl::StatusOr<CliArgs> ParseCli(int argc, const char* const* argv) {
  CliArgs a;
  a.command = argc < 2 ? "help" : argv[1];
  if (argc < 2) return a;
  // "ckptbench -h": the help flag in the command's place.
  if (std::find(std::begin(kHelpFlags), std::end(kHelpFlags), a.command) !=
      std::end(kHelpFlags)) {
    a.command = "help";
  }
  if (absl::Status s = CheckCommand(a.command); !s.ok()) return s;
  // A workload's command is a run of it (RunCommand).
  for (const WorkloadChoice* w : WorkloadCommands()) {
    if (a.command == w->name) {
      a.overrides.push_back(absl::StrCat("run.workload=", w->name));
    }
  }
  const bool positional =
      std::find(std::begin(kPositional), std::end(kPositional), a.command) !=
      std::end(kPositional);
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("-", 0) == 0) {
      if (absl::Status s = ApplyFlag(argc, argv, &i, a); !s.ok()) return s;
    } else if (arg.find('=') != std::string::npos) {
      a.overrides.push_back(arg);
    } else if (positional) {
      a.positional.push_back(arg);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unexpected argument '", arg, "': expected key=value or an option"));
    }
  }
  return a;
}

}  // namespace ckpt
