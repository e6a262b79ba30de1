// Deployment files, checked without a cluster or a Docker engine:
//  - every kustomization (base and overlays) renders with `kubectl
//    kustomize`, its JobSet validates against the JobSet CRD's schema
//    (../shared/k8s/jobset-crd.yaml) and its built-in kinds against
//    Kubernetes' own (npm kubernetes-models), by tests/deploy/check.js;
//  - deploy/docker-compose.yaml passes docker-compose 1.29's `config -q`;
//  - every env var, command and flag those files hand to ckptbench is one
//    the binary accepts (`ckptbench keys --json`);
//  - the dataloading overlay on each shared storage's overlay renders, keeps
//    that storage's settings, and runs an experiment ckptbench accepts;
//  - the Dockerfile's build stage runs the scripts CI runs.
// What a user sets on top of the manifests: deploy_user_setup_test.cc.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tests/integration/deploy_testing.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

TEST(Deploy, EveryManifestRendersAndValidatesAgainstItsSchema) {
  if (!HaveTools()) {
    GTEST_SKIP() << "needs kubectl on PATH, /usr/bin/node and "
                    "tests/deploy/node_modules (scripts/test.sh installs them)";
  }
  TempDir t;
  const bool crd = fs::exists(kCrd);
  if (!crd) {
    std::printf("JobSet schema check skipped: %s is absent\n", kCrd.c_str());
  }
  const auto dirs = Kustomizations();
  EXPECT_GE(dirs.size(), 15u);  // base, results (2) + 12 overlays
  std::set<std::string> names;
  for (const auto& dir : dirs) {
    std::string name = fs::path(dir).filename().string();
    names.insert(name);
    auto r = RunProcess({kKubectl, "kustomize", dir}, Env(t));
    ASSERT_EQ(r.exit_code, 0) << dir << ": " << r.err;
    std::string rendered = t.Sub(name + ".yaml");
    std::ofstream(rendered) << r.out;
    std::vector<std::string> args = {"--k8s", rendered, "--plan",
                                     CkptbenchBinary()};
    if (crd) args.insert(args.begin(), {"--crd", kCrd});
    std::string out;
    EXPECT_EQ(Check(t, args, &out), 0) << dir << ":\n" << out;
    if (name.rfind("results", 0) == 0) {
      EXPECT_NE(out.find("PersistentVolumeClaim/ckptbench-results: valid"),
                std::string::npos)
          << out;
      EXPECT_EQ(out.find("JobSet/"), std::string::npos)
          << name << " holds only the claim: deleting a run keeps it";
      continue;
    }
    // Node pods that keep checkpoints in an emptyDir ask for the disk the
    // plan needs (NUM_SAVE_CALLS checkpoints of their shards).
    if (name == "base" || name == "llama-7b" || name == "kueue") {
      EXPECT_NE(out.find("nodes: ephemeral-storage request"), std::string::npos)
          << dir << ":\n"
          << out;
    }
    if (crd) {
      EXPECT_NE(out.find("JobSet/ckptbench: valid against the JobSet CRD"),
                std::string::npos)
          << out;
    }
    EXPECT_NE(out.find("ConfigMap/ckptbench-config: valid"), std::string::npos)
        << out;
    // The claim is applied once, apart: `delete -k` of a run keeps it.
    EXPECT_EQ(r.out.find("kind: PersistentVolumeClaim\nmetadata:\n  labels:\n"
                         "    app.kubernetes.io/name: ckptbench\n  name: "
                         "ckptbench-results"),
              std::string::npos)
        << name << " makes the results claim";
  }
  for (const char* want :
       {"s3-irsa", "s3-pod-identity", "gcs-workload-identity", "gcsfuse",
        "mountpoint-s3", "boot-disk-save", "boot-disk-load", "kueue",
        "s3-compatible", "llama-7b", "dataloading"}) {
    EXPECT_TRUE(names.count(want)) << want;
  }
}

// The checker is not a rubber stamp: a wrong type, an env var and a flag
// ckptbench does not know are each reported.
TEST(Deploy, TheCheckerCatchesSchemaAndInterfaceMistakes) {
  if (!HaveTools()) GTEST_SKIP() << "needs kubectl, node and tests/deploy";
  TempDir t;
  auto r =
      RunProcess({kKubectl, "kustomize", kSource + "/deploy/k8s/base"}, Env(t));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct Case {
    std::string from, to, want;
    bool needs_crd;
  } cases[] = {
      {"completions: 4", "completions: four", "schema: /spec/replicatedJobs",
       true},
      {"CKPT_DIR_PATH: /data", "CKPT_DIR_PTH: /data",
       "env var 'CKPT_DIR_PTH' is not one ckptbench reads", false},
      {"--results-dir", "--result-dir",
       "flag '--result-dir' is not one ckptbench accepts", false},
      {"- coordinator\n", "- coordinate\n",
       "'coordinate' is not a ckptbench command", false},
      {"kind: ServiceAccount\n",
       "automountServiceAccountToken: maybe\nkind: ServiceAccount\n",
       "ServiceAccount", false},
      // A bigger checkpoint than the node pods' disk request holds.
      {"NUM_LAYERS: \"120\"", "NUM_LAYERS: \"400\"",
       "nodes: ephemeral-storage request 1Gi does not hold 3 checkpoint(s)",
       false},
      {"NUM_NODES: \"4\"", "NUM_NODES: \"3\"",
       "NUM_NODES=3 but the nodes Job has parallelism 4", false},
  };
  for (const auto& c : cases) {
    if (c.needs_crd && !fs::exists(kCrd)) continue;
    std::string text = r.out;
    size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    std::string bad = t.Sub("bad.yaml");
    std::ofstream(bad) << text;
    std::string out;
    EXPECT_EQ(
        Check(t, {"--crd", kCrd, "--k8s", bad, "--plan", CkptbenchBinary()},
              &out),
        1)
        << c.to;
    EXPECT_NE(out.find(c.want), std::string::npos) << c.to << ":\n" << out;
  }
}

TEST(Deploy, ComposeFilePassesDockerCompose129AndUsesOnlyWhatCkptbenchReads) {
  const std::string compose = "/usr/bin/docker-compose";
  if (!fs::exists(compose) || !fs::exists("/usr/bin/node")) {
    GTEST_SKIP() << "needs /usr/bin/docker-compose and /usr/bin/node "
                    "(scripts/install-deps.sh installs them)";
  }
  TempDir t;
  const std::string file = kSource + "/deploy/docker-compose.yaml";
  auto r = RunProcess({compose, "-f", file, "config", "-q"}, Env(t));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // A field 1.29 does not know is refused: the check can fail.
  std::string text = ReadFile(file);
  std::string bad = t.Sub("docker-compose.yaml");
  std::ofstream(bad) << std::regex_replace(text, std::regex("\n  minio:\n"),
                                           "\n  minio:\n    develop: {}\n");
  auto refused = RunProcess({compose, "-f", bad, "config", "-q"}, Env(t));
  EXPECT_NE(refused.exit_code, 0) << "docker-compose accepted 'develop'";
  std::string out;
  EXPECT_EQ(Check(t, {"--compose", file}, &out), 0) << out;
  EXPECT_NE(out.find("service coordinator: command and"), std::string::npos)
      << out;
  EXPECT_NE(out.find("service node-2: command and"), std::string::npos) << out;
}

// Every pod meets the Pod Security Standards' "restricted" profile, as
// tests/deploy/pod_security.js reads upstream's checks (its self-test shows
// each rule can fail). The boot-disk overlays are the documented exception:
// hostPath, and the one root init container that hands it to uid 10001,
// with CAP_CHOWN alone; nothing else of theirs may break a rule.
TEST(Deploy, EveryPodMeetsPodSecurityRestricted) {
  if (!HaveTools()) GTEST_SKIP() << "needs kubectl, node and tests/deploy";
  TempDir t;
  auto self = RunProcess(
      {"/bin/bash", kSource + "/tests/deploy/pod_security_selftest.sh"},
      Env(t));
  EXPECT_EQ(self.exit_code, 0) << self.out << self.err;
  std::vector<std::string> files = {kSource +
                                    "/deploy/k8s/results/reader.yaml"};
  for (const auto& dir : JobSetKustomizations()) {
    const std::string name = fs::path(dir).filename().string();
    auto r = RunProcess({kKubectl, "kustomize", dir}, Env(t));
    ASSERT_EQ(r.exit_code, 0) << dir << ": " << r.err;
    files.push_back(t.Sub(name + ".yaml"));
    std::ofstream(files.back()) << r.out;
  }
  int exceptions = 0;
  for (const auto& f : files) {
    const bool boot_disk =
        fs::path(f).filename().string().rfind("boot-disk", 0) == 0;
    std::vector<std::string> argv = {"/usr/bin/node",
                                     kSource + "/tests/deploy/pod_security.js"};
    if (boot_disk) argv.push_back("--allow-hostpath");
    argv.push_back(f);
    auto r = RunProcess(argv, Env(t));
    if (!boot_disk) {
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(": ok"), std::string::npos) << r.out;
      continue;
    }
    ++exceptions;
    std::stringstream lines(r.out);
    std::set<std::string> rules;
    for (std::string line; std::getline(lines, line);) {
      size_t at = line.find(": FAIL ");
      if (at == std::string::npos) continue;
      EXPECT_NE(line.find("spec.initContainers[own-data]"), std::string::npos)
          << line;
      rules.insert(line.substr(at + 7, line.find(':', at + 7) - at - 7));
      if (line.find("capabilities") != std::string::npos) {
        EXPECT_NE(line.find("has \"CHOWN\""), std::string::npos) << line;
      }
    }
    EXPECT_EQ(rules, (std::set<std::string>{"capabilities_restricted",
                                            "runAsNonRoot", "runAsUser"}))
        << r.out;
    EXPECT_NE(r.out.find("replicatedJob coordinator: ok"), std::string::npos)
        << r.out;
  }
  EXPECT_EQ(exceptions, 3);  // boot-disk, boot-disk-save, boot-disk-load
}

// The build stage runs the scripts CI runs (scripts/test.sh) for the one
// target the image ships, stripped; the tests run in CI, not in the image.
// The context is what the binary is built from: the container test shows an
// edit elsewhere rebuilds nothing (tests/containers/image_test.sh).
TEST(Deploy, DockerfileBuildStageRunsTheScriptsCiRuns) {
  std::string dockerfile = ReadFile(kSource + "/Dockerfile");
  std::string ci = ReadFile(kSource + "/scripts/test.sh");
  // Continuation lines joined, as the builder reads them.
  dockerfile = std::regex_replace(dockerfile, std::regex("\\\\\n\\s*"), "");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      dockerfile, m, std::regex("FROM debian:12 AS build([^]*?)\nFROM ")))
      << "no build stage";
  std::string build = m[1];
  std::vector<std::string> runs;
  std::regex run("\nRUN ([^\n]*)");
  for (auto it = std::sregex_iterator(build.begin(), build.end(), run);
       it != std::sregex_iterator(); ++it) {
    runs.push_back((*it)[1]);
  }
  ASSERT_EQ(runs.size(), 2u) << build;
  EXPECT_EQ(runs[0], "bash scripts/install-deps.sh --build");
  EXPECT_NE(ci.find("bash scripts/install-deps.sh\n"), std::string::npos);
  // The same build script as CI's optimized build, in the form the README's
  // first command uses: ckptbench alone, no tests or benchmarks.
  EXPECT_NE(ci.find("bash scripts/build.sh build "), std::string::npos);
  std::string readme = ReadFile(kSource + "/README.md");
  EXPECT_NE(readme.find("bash scripts/install-deps.sh --build && "
                        "bash scripts/build.sh --main && "),
            std::string::npos);
  EXPECT_NE(runs[1].find("bash scripts/build.sh --main"), std::string::npos)
      << runs[1];
  std::string script = ReadFile(kSource + "/scripts/build.sh");
  EXPECT_NE(script.find("-DCKPTBENCH_TESTS=OFF -DCKPTBENCH_BENCH=OFF"),
            std::string::npos);
  EXPECT_NE(script.find("CKPT_TARGETS=ckptbench"), std::string::npos);
  EXPECT_EQ(runs[1].find("ctest"), std::string::npos)
      << "the tests run in CI (scripts/test.sh), not in the image";
  EXPECT_NE(runs[1].find("strip --strip-all -o /ckptbench build/ckptbench"),
            std::string::npos)
      << runs[1];
  // BuildKit's cache mount and a bound directory (CCACHE_DIR) at two paths.
  EXPECT_NE(runs[1].find("--mount=type=cache,target=/var/cache/ccache"),
            std::string::npos);
  EXPECT_NE(build.find("ARG CCACHE_DIR=/var/cache/ccache"), std::string::npos);
  // The runtime stage: non-root, only the stripped binary (and conf/).
  std::string runtime = dockerfile.substr(dockerfile.rfind("\nFROM "));
  EXPECT_NE(runtime.find("USER 10001"), std::string::npos);
  EXPECT_NE(runtime.find("COPY --from=build /ckptbench /usr/local/bin/"),
            std::string::npos);
  EXPECT_EQ(runtime.find("-dev"), std::string::npos)
      << "dev packages at run time";
  // .dockerignore leaves out everything, then lets in the sources.
  std::string ignore = ReadFile(kSource + "/.dockerignore");
  EXPECT_TRUE(std::regex_search(ignore, std::regex("(^|\n)\\*\n")))
      << ".dockerignore does not start from nothing";
  for (const char* dir : {"docs", "deploy", "tests", "bench"}) {
    EXPECT_EQ(ignore.find(std::string("!") + dir), std::string::npos) << dir;
  }
}

// The dataloading overlay on each shared storage, as its kustomization tells
// a user to put it there: a copy whose bases: names that storage's overlay.
// Each is rendered and checked against the schemas, ckptbench's interface
// and Pod Security; its storage is the storage overlay's own, unchanged; and
// ckptbench validates the experiment the coordinator pod runs with that
// pod's env (`sweep --dry-run`: every point valid). The container test runs
// it on S3 (s3-compatible); the GCS ones are rendered and checked, not run
// (no GCS or GKE here).
TEST(Deploy, TheDataloadingOverlayRendersOnEverySharedStorage) {
  if (!HaveTools()) GTEST_SKIP() << "needs kubectl, node and tests/deploy";
  TempDir t;
  const fs::path overlays = kSource + "/deploy/k8s/overlays";
  const std::map<std::string, std::string> set_here = {{"NUM_LAYERS", "40"}};
  const std::set<std::string> removed = {"CKPT_MODE", "NUM_SAVE_CALLS",
                                         "NUM_LOAD_CALLS"};
  for (const char* storage :
       {"s3-compatible", "s3-irsa", "s3-pod-identity", "gcs-workload-identity",
        "gcsfuse", "mountpoint-s3"}) {
    SCOPED_TRACE(storage);
    const fs::path dir = t.Sub(std::string("on-") + storage);
    fs::create_directories(dir);
    for (const auto& e : fs::directory_iterator(overlays / "dataloading")) {
      std::string text = ReadFile(e.path().string());
      if (e.path().filename() == "kustomization.yaml") {
        const std::string shipped = "\n- ../s3-compatible\n";
        const size_t at = text.find(shipped);
        ASSERT_NE(at, std::string::npos) << "bases: is not ../s3-compatible";
        text.replace(
            at, shipped.size(),
            "\n- " + fs::relative(overlays / storage, dir).string() + "\n");
      }
      std::ofstream(dir / e.path().filename()) << text;
    }
    std::string text;
    auto docs = Render(t, dir.string(), &text);
    auto alone = Render(t, (overlays / storage).string());
    ASSERT_TRUE(docs.count("JobSet/ckptbench") &&
                docs.count("ConfigMap/ckptbench-config"));
    const YAML::Node data = docs["ConfigMap/ckptbench-config"]["data"];
    const YAML::Node own = alone["ConfigMap/ckptbench-config"]["data"];
    for (const auto& kv : own) {
      const std::string key = kv.first.as<std::string>();
      if (removed.count(key)) {
        EXPECT_FALSE(data[key]) << key << ": a checkpoint-workload key left";
      } else if (!set_here.count(key)) {
        EXPECT_EQ(data[key].as<std::string>(""), kv.second.as<std::string>())
            << key << " is not the storage overlay's";
      }
    }
    for (const auto& kv : data) {
      const std::string key = kv.first.as<std::string>();
      auto it = set_here.find(key);
      if (it != set_here.end()) {
        EXPECT_EQ(kv.second.as<std::string>(), it->second) << key;
      } else {
        EXPECT_TRUE(own[key]) << key << ": added by the overlay, unchecked";
      }
    }
    EXPECT_EQ(YAML::Dump(docs["ServiceAccount/ckptbench"]),
              YAML::Dump(alone["ServiceAccount/ckptbench"]));
    // The node pods' storage (volumes, Secrets) is the storage overlay's.
    const YAML::Node nodes = PodSpec(docs["JobSet/ckptbench"], 1);
    const YAML::Node nodes_alone = PodSpec(alone["JobSet/ckptbench"], 1);
    EXPECT_EQ(YAML::Dump(nodes["volumes"]), YAML::Dump(nodes_alone["volumes"]));
    EXPECT_EQ(YAML::Dump(nodes["containers"][0]["envFrom"]),
              YAML::Dump(nodes_alone["containers"][0]["envFrom"]));
    EXPECT_EQ(docs.count("Secret/ckptbench-s3"),
              alone.count("Secret/ckptbench-s3"));
    // The coordinator runs the experiment from the image's conf/ (this
    // repository's conf/), into its JobSet's own directory.
    const YAML::Node args =
        PodSpec(docs["JobSet/ckptbench"], 0)["containers"][0]["args"];
    // --resume: a restart (failurePolicy) finishes what is missing.
    ASSERT_EQ(args.size(), 5u);
    EXPECT_EQ(args[0].as<std::string>(), "sweep");
    const std::string in_image = args[1].as<std::string>();
    ASSERT_EQ(in_image.rfind("/etc/ckptbench/conf/", 0), 0u) << in_image;
    EXPECT_EQ(args[2].as<std::string>(), "--resume");
    EXPECT_EQ(args[4].as<std::string>(),
              "/results/${JOBSET_NAME}-${JOBSET_UID}");
    std::map<std::string, std::string> env = Env(t);
    for (const auto& kv : data) {
      env[kv.first.as<std::string>()] = kv.second.as<std::string>();
    }
    const std::vector<std::string> dry_run = {
        CkptbenchBinary(), "sweep",
        kSource + "/conf/" +
            in_image.substr(sizeof("/etc/ckptbench/conf/") - 1),
        "--dry-run"};
    // As shipped, a bucket or endpoint still a placeholder (a name under
    // .invalid) stops the run before anything, naming the setting; set as a
    // user sets them (here: the names without .invalid), every point is
    // valid.
    bool placeholders = false;
    for (auto& [key, value] : env) {
      for (size_t at; (at = value.find(".invalid")) != std::string::npos;) {
        placeholders = true;
        value.erase(at, sizeof(".invalid") - 1);
      }
    }
    if (placeholders) {
      std::map<std::string, std::string> shipped = Env(t);
      for (const auto& kv : data) {
        shipped[kv.first.as<std::string>()] = kv.second.as<std::string>();
      }
      auto refused = RunProcess(dry_run, shipped);
      EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
      EXPECT_TRUE(std::regex_search(
          refused.out + refused.err,
          std::regex("(CKPT_DIR_PATH|AWS_ENDPOINT_URL_S3)\\) = '[^']*' is a "
                     "placeholder")))
          << refused.out << refused.err;
    }
    EXPECT_EQ(placeholders, std::string(storage) != "gcsfuse" &&
                                std::string(storage) != "mountpoint-s3")
        << "the bucket/endpoint placeholders are names under .invalid";
    auto dry = RunProcess(dry_run, env);
    EXPECT_EQ(dry.exit_code, 0) << dry.out << dry.err;
    EXPECT_NE(dry.out.find("2 run(s), all valid"), std::string::npos)
        << dry.out << dry.err;
    // Schemas, interface, Pod Security.
    const std::string rendered = (dir / "rendered.yaml").string();
    std::ofstream(rendered) << text;
    std::vector<std::string> check = {"--k8s", rendered, "--plan",
                                      CkptbenchBinary()};
    if (fs::exists(kCrd)) check.insert(check.begin(), {"--crd", kCrd});
    std::string out;
    EXPECT_EQ(Check(t, check, &out), 0) << out;
    auto pss = RunProcess(
        {"/usr/bin/node", kSource + "/tests/deploy/pod_security.js", rendered},
        Env(t));
    EXPECT_EQ(pss.exit_code, 0) << pss.out << pss.err;
  }
}

// Env vars the code reads by name are all listed by `keys --json`, so the
// manifests' check above is complete.
TEST(Deploy, EveryEnvVarTheCodeReadsIsListed) {
  TempDir t;
  std::string iface = ReadFile(InterfaceFile(t));
  std::regex literal(
      "\"((?:AWS_|GOOGLE_|GCE_|CLOUDSDK_|STORAGE_EMULATOR|NO_GCE|"
      "METADATA_SERVER|JOB_COMPLETION|NODE_RANK)[A-Z0-9_]*)\"");
  int seen = 0;
  for (const char* dir : {"/node", "/main", "/common", "/coordinator"}) {
    for (const auto& e : fs::recursive_directory_iterator(kSource + dir)) {
      if (e.path().extension() != ".cc") continue;
      std::string text = ReadFile(e.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), literal);
           it != std::sregex_iterator(); ++it) {
        ++seen;
        std::string name = (*it)[1];
        EXPECT_NE(iface.find("\"" + name + "\""), std::string::npos)
            << e.path() << " reads " << name << ", which keys --json omits";
      }
    }
  }
  EXPECT_GT(seen, 20);
}

}  // namespace
}  // namespace ckpt
