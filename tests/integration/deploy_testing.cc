#include "tests/integration/deploy_testing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/testing/source_dir.h"
#include "tests/testing/subprocess.h"

namespace ckpt {

namespace fs = std::filesystem;

const std::string kSource = SourceDir();
const std::string kCrd = kSource + "/../shared/k8s/jobset-crd.yaml";

// A program on PATH, as an absolute path ("" if none).
std::string Which(const std::string& name) {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && fs::exists(dir + "/" + name)) return dir + "/" + name;
  }
  return "";
}

const std::string kKubectl = Which("kubectl");

std::map<std::string, std::string> Env(const TempDir& t) {
  return {{"HOME", t.path()}};
}

// The binary's interface, written where check.js can read it.
std::string InterfaceFile(const TempDir& t) {
  auto r = RunProcess({CkptbenchBinary(), "keys", "--json"}, Env(t));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string path = t.Sub("interface.json");
  std::ofstream(path) << r.out;
  return path;
}

std::vector<std::string> Kustomizations() {
  std::vector<std::string> dirs = {kSource + "/deploy/k8s/base",
                                   kSource + "/deploy/k8s/results",
                                   kSource + "/deploy/k8s/results-eks"};
  for (const auto& e :
       fs::directory_iterator(kSource + "/deploy/k8s/overlays")) {
    if (fs::exists(e.path() / "kustomization.yaml")) {
      dirs.push_back(e.path().string());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::vector<std::string> JobSetKustomizations() {
  std::vector<std::string> dirs;
  for (const std::string& d : Kustomizations()) {
    if (fs::path(d).filename().string().rfind("results", 0) != 0) {
      dirs.push_back(d);
    }
  }
  return dirs;
}

// Runs check.js; its stdout and stderr in `out`.
int Check(const TempDir& t, std::vector<std::string> args, std::string* out) {
  std::vector<std::string> argv = {"/usr/bin/node",
                                   kSource + "/tests/deploy/check.js",
                                   "--interface", InterfaceFile(t)};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = RunProcess(argv, Env(t));
  *out = r.out + r.err;
  return r.exit_code;
}

bool HaveTools() {
  return !kKubectl.empty() && fs::exists("/usr/bin/node") &&
         fs::exists(kSource + "/tests/deploy/node_modules/ajv");
}

// The documents of `kubectl kustomize DIR`, by "Kind/name"; the rendered
// text in *text when asked.
std::map<std::string, YAML::Node> Render(const TempDir& t,
                                         const std::string& dir,
                                         std::string* text) {
  auto r = RunProcess({kKubectl, "kustomize", dir}, Env(t));
  EXPECT_EQ(r.exit_code, 0) << dir << ": " << r.err;
  if (text) *text = r.out;
  std::map<std::string, YAML::Node> docs;
  for (const YAML::Node& d : YAML::LoadAll(r.out)) {
    if (!d.IsMap()) continue;
    docs[d["kind"].as<std::string>() + "/" +
         d["metadata"]["name"].as<std::string>()] = d;
  }
  return docs;
}

YAML::Node PodSpec(const YAML::Node& jobset, int replicated_job) {
  return jobset["spec"]["replicatedJobs"][replicated_job]["template"]["spec"]
               ["template"]["spec"];
}

}  // namespace ckpt
