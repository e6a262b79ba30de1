// What the deployment tests share: where the source is, kubectl, rendering
// a kustomization, and tests/deploy/check.js (deploy_test.cc,
// deploy_user_setup_test.cc).
#ifndef CKPTBENCH_TESTS_INTEGRATION_DEPLOY_TESTING_H_
#define CKPTBENCH_TESTS_INTEGRATION_DEPLOY_TESTING_H_

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "tests/testing/temp_dir.h"

namespace ckpt {

extern const std::string kSource;
// The JobSet CRD the tests carry (../shared/k8s), when it is there.
extern const std::string kCrd;
// kubectl on PATH ("" if none).
extern const std::string kKubectl;

// A program on PATH, as an absolute path ("" if none).
std::string Which(const std::string& name);
// The environment the tools run in: HOME in the test's directory.
std::map<std::string, std::string> Env(const TempDir& t);
// The binary's interface (`ckptbench keys --json`), written where check.js
// can read it.
std::string InterfaceFile(const TempDir& t);
// deploy/k8s/base, results, results-eks and every overlay, sorted.
std::vector<std::string> Kustomizations();
// The same but the results claims': those that hold a JobSet.
std::vector<std::string> JobSetKustomizations();
// Runs check.js; its stdout and stderr in `out`.
int Check(const TempDir& t, std::vector<std::string> args, std::string* out);
// kubectl, node and tests/deploy/node_modules (check.js's) are there.
bool HaveTools();
// The documents of `kubectl kustomize DIR`, by "Kind/name"; the rendered
// text in *text when asked.
std::map<std::string, YAML::Node> Render(const TempDir& t,
                                         const std::string& dir,
                                         std::string* text = nullptr);
// A JobSet's replicated job's pod spec.
YAML::Node PodSpec(const YAML::Node& jobset, int replicated_job);

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_INTEGRATION_DEPLOY_TESTING_H_
