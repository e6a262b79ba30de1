#include "main/cli.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/path_vars.h"
#include "common/text.h"

namespace ckpt {

std::string UsageText() {
  return R"(usage: ckptbench <command> [options] [key=value ...]

commands:
  run          single-node save/load benchmark (coordinator and node agent in
               one process); configured by --config, env vars and key=value
  sweep FILE [key=a,b,c ...]
               run an experiment file's sweep: every point of the product
               of its sweep: values, `repeat` times (points with NUM_NODES
               > 1 make this process the coordinator of the node agents);
               writes DIR/NNN-<values>/result.json, collated_results.json,
               results.csv and report.html (DIR: --results-dir, default
               multirun/<date>/<time>); --resume finishes an interrupted
               sweep, --dry-run validates and lists the runs
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
  --dry-run           (sweep) validate every point and list the runs
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
)";
}

const std::vector<std::string>& CliCommands() {
  static const std::vector<std::string> kCommands = {
      "run",  "sweep", "report",  "compare", "coordinator", "node",
      "plan", "keys",  "version", "help",    "uploads"};
  return kCommands;
}

const std::vector<FlagDef>& CliFlags() {
  static const std::vector<FlagDef> kFlags = {
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
      {"--per-rank", false, "plan: every rank's files"},
      {"--list", false, "plan: the model presets"},
      {"--abort", false, "uploads: abort the uploads listed"},
      {"--json", false, "keys: the machine-readable interface"},
      {"--verbose", false, "debug logging"},
      {"-v", false, "debug logging"},
      {"--quiet", false, "no progress lines"},
      {"-q", false, "no progress lines"},
      {"--help", false, "usage"},
      {"-h", false, "usage"},
  };
  return kFlags;
}

namespace {

// Flags that set a configuration key.
constexpr std::pair<const char*, const char*> kOverrideFlags[] = {
    {"--listen", "control.listen"},
    {"--coordinator", "control.coordinator"},
    {"--node-index", "control.node_index"},
};

}  // namespace

absl::StatusOr<CliArgs> ParseCli(int argc, const char* const* argv) {
  CliArgs a;
  if (argc < 2) {
    a.command = "help";
    return a;
  }
  a.command = argv[1];
  if (a.command == "-h" || a.command == "--help") a.command = "help";
  const std::vector<std::string>& commands = CliCommands();
  bool known = false;
  for (const auto& c : commands) known |= (c == a.command);
  if (!known) {
    std::string msg = absl::StrCat("unknown command '", a.command, "'");
    std::string near = ClosestMatch(a.command, commands);
    if (!near.empty()) absl::StrAppend(&msg, "; did you mean '", near, "'?");
    absl::StrAppend(&msg,
                    " expected run, sweep, report, compare, coordinator, "
                    "node, plan, keys or version");
    return absl::InvalidArgumentError(msg);
  }
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("-", 0) == 0) {
      std::string name = arg.substr(0, arg.find('='));
      bool known_flag = false;
      for (const auto& f : CliFlags()) known_flag |= f.name == name;
      if (!known_flag) {
        return absl::InvalidArgumentError(absl::StrCat(
            "unknown option '", arg, "' (ckptbench help lists them)"));
      }
    }
    auto value = [&](const std::string& flag) -> absl::StatusOr<std::string> {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) return arg.substr(eq + 1);
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag, ": expected a value"));
      }
      return std::string(argv[++i]);
    };
    // A flag that takes a value: "--flag VALUE" or "--flag=VALUE".
    auto is = [&](const char* flag) {
      return arg == flag || arg.rfind(std::string(flag) + "=", 0) == 0;
    };
    const char* override_key = nullptr;
    for (const auto& [flag, key] : kOverrideFlags) {
      if (is(flag)) override_key = key;
    }
    if (override_key != nullptr) {
      auto v = value(arg.substr(0, arg.find('=')));
      if (!v.ok()) return v.status();
      a.overrides.push_back(absl::StrCat(override_key, "=", *v));
    } else if (is("--config")) {
      auto v = value("--config");
      if (!v.ok()) return v.status();
      a.config_path = *v;
    } else if (is("--results-dir")) {
      auto v = value("--results-dir");
      if (!v.ok()) return v.status();
      auto expanded = ExpandPathVars(*v, "--results-dir");
      if (!expanded.ok()) return expanded.status();
      a.results_dir = *expanded;
    } else if (is("--protocol-version")) {
      auto v = value("--protocol-version");
      if (!v.ok()) return v.status();
      if (!absl::SimpleAtoi(*v, &a.protocol_version)) {
        return absl::InvalidArgumentError(
            "--protocol-version: expected a number");
      }
    } else if (arg == "--save-only") {
      a.overrides.push_back("run.mode=save-only");
    } else if (arg == "--load-only") {
      a.overrides.push_back("run.mode=load-only");
    } else if (arg == "--resume") {
      a.resume = true;
    } else if (arg == "--overwrite") {
      a.overwrite = true;
    } else if (arg == "--dry-run") {
      a.dry_run = true;
    } else if (arg == "--json") {
      a.json = true;
    } else if (arg == "--per-rank") {
      a.per_rank = true;
    } else if (arg == "--list") {
      a.list = true;
    } else if (arg == "--abort") {
      a.abort = true;
    } else if (arg == "-v" || arg == "--verbose") {
      a.verbose = true;
    } else if (arg == "-q" || arg == "--quiet") {
      a.quiet = true;
    } else if (arg == "-h" || arg == "--help") {
      a.command = "help";
    } else if (arg.rfind("-", 0) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown option '", arg, "' (ckptbench help lists them)"));
    } else if (arg.find('=') != std::string::npos) {
      a.overrides.push_back(arg);
    } else if (a.command == "sweep" || a.command == "report" ||
               a.command == "compare" || a.command == "uploads") {
      a.positional.push_back(arg);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unexpected argument '", arg, "': expected key=value or an option"));
    }
  }
  return a;
}

}  // namespace ckpt
