// What a failure does to a shipped JobSet: every overlay's Jobs and
// failurePolicy, rendered, checked against the rules the JobSet webhook
// (kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go,
// validateFailurePolicy) and the Job API (k8s.io/api batch/v1 types.go,
// PodFailurePolicyRule) enforce, and then for what they do with each exit
// status (README, "Exit status"): 1 and 2 fail the Job and the JobSet at
// once; 3 and a disrupted pod count towards a restart. The schema itself is
// checked by check.js against the CRD (deploy_test.cc); the pods'
// behaviour under these rules by tests/containers/jobset_test.sh.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "tests/integration/deploy_testing.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> kJobSetActions = {
    "FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts",
    "RestartJob", "RestartJobAndIgnoreMaxRestarts"};
const std::set<std::string> kJobFailureReasons = {
    "BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes",
    "MaxFailedIndexesExceeded", "PodFailurePolicy"};
const std::set<std::string> kPodActions = {"FailJob", "FailIndex", "Ignore",
                                           "Count"};

// The action a Job's podFailurePolicy takes on a pod whose `container`
// exited `code` (and that was disrupted, or not): its first matching rule's,
// else Count (the default handling).
std::string PodAction(const YAML::Node& policy, const std::string& container,
                      int code, bool disrupted) {
  for (const YAML::Node& rule : policy["rules"]) {
    if (const YAML::Node e = rule["onExitCodes"]) {
      if (e["containerName"] &&
          e["containerName"].as<std::string>() != container) {
        continue;
      }
      std::set<int> values;
      for (const YAML::Node& v : e["values"]) values.insert(v.as<int>());
      const bool in = values.count(code) > 0;
      if (code != 0 && (e["operator"].as<std::string>() == "In" ? in : !in)) {
        return rule["action"].as<std::string>();
      }
    }
    for (const YAML::Node& c : rule["onPodConditions"]) {
      if (disrupted && c["type"].as<std::string>() == "DisruptionTarget" &&
          c["status"].as<std::string>("True") == "True") {
        return rule["action"].as<std::string>();
      }
    }
  }
  return "Count";
}

// The failurePolicy rule's action for a Job that failed with `reason`
// ("" when none matches: RestartJobSet).
std::string JobSetAction(const YAML::Node& policy, const std::string& job,
                         const std::string& reason) {
  for (const YAML::Node& rule : policy["rules"]) {
    bool reason_ok =
        !rule["onJobFailureReasons"] || rule["onJobFailureReasons"].size() == 0;
    for (const YAML::Node& r : rule["onJobFailureReasons"]) {
      reason_ok |= r.as<std::string>() == reason;
    }
    bool job_ok = !rule["targetReplicatedJobs"] ||
                  rule["targetReplicatedJobs"].size() == 0;
    for (const YAML::Node& r : rule["targetReplicatedJobs"]) {
      job_ok |= r.as<std::string>() == job;
    }
    if (reason_ok && job_ok) return rule["action"].as<std::string>();
  }
  return "";
}

// The webhook's and the API's rules for what is written.
void CheckWritten(const YAML::Node& jobset) {
  const YAML::Node policy = jobset["spec"]["failurePolicy"];
  ASSERT_TRUE(policy) << "no failurePolicy";
  std::set<std::string> jobs, names;
  for (const YAML::Node& j : jobset["spec"]["replicatedJobs"]) {
    jobs.insert(j["name"].as<std::string>());
  }
  const std::regex name_re("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");
  for (const YAML::Node& rule : policy["rules"]) {
    const std::string name = rule["name"].as<std::string>("");
    EXPECT_TRUE(std::regex_match(name, name_re) && name.size() <= 128)
        << "rule name '" << name << "'";
    EXPECT_TRUE(names.insert(name).second) << "rule name twice: " << name;
    EXPECT_TRUE(kJobSetActions.count(rule["action"].as<std::string>("")))
        << name;
    for (const YAML::Node& r : rule["onJobFailureReasons"]) {
      EXPECT_TRUE(kJobFailureReasons.count(r.as<std::string>()))
          << name << ": " << r.as<std::string>();
    }
    for (const YAML::Node& r : rule["targetReplicatedJobs"]) {
      EXPECT_TRUE(jobs.count(r.as<std::string>())) << name;
    }
  }
  for (const YAML::Node& j : jobset["spec"]["replicatedJobs"]) {
    const std::string job = j["name"].as<std::string>();
    const YAML::Node spec = j["template"]["spec"];
    const YAML::Node pod = spec["template"]["spec"];
    EXPECT_EQ(pod["restartPolicy"].as<std::string>(""), "Never") << job;
    EXPECT_EQ(spec["backoffLimit"].as<int>(-1), 0) << job;
    std::set<std::string> containers;
    for (const char* kind : {"containers", "initContainers"}) {
      for (const YAML::Node& c : pod[kind]) {
        containers.insert(c["name"].as<std::string>());
      }
    }
    const YAML::Node rules = spec["podFailurePolicy"]["rules"];
    ASSERT_TRUE(rules && rules.size() > 0 && rules.size() <= 20) << job;
    for (const YAML::Node& rule : rules) {
      EXPECT_TRUE(kPodActions.count(rule["action"].as<std::string>(""))) << job;
      EXPECT_NE(static_cast<bool>(rule["onExitCodes"]),
                static_cast<bool>(rule["onPodConditions"]))
          << job << ": one of onExitCodes and onPodConditions";
      if (const YAML::Node e = rule["onExitCodes"]) {
        EXPECT_TRUE(containers.count(e["containerName"].as<std::string>("")))
            << job << ": containerName names no container of the pod";
        std::vector<int> v;
        for (const YAML::Node& x : e["values"]) v.push_back(x.as<int>());
        EXPECT_TRUE(std::is_sorted(v.begin(), v.end()) &&
                    std::adjacent_find(v.begin(), v.end()) == v.end())
            << job << ": values sorted, no duplicates";
        if (e["operator"].as<std::string>() == "In") {
          EXPECT_EQ(std::count(v.begin(), v.end(), 0), 0) << job;
        }
      }
    }
  }
}

TEST(Deploy, FailuresEndOrRestartTheJobSetByExitStatus) {
  if (kKubectl.empty()) GTEST_SKIP() << "needs kubectl";
  TempDir t;
  const std::string readme = ReadFile(kSource + "/README.md");
  EXPECT_NE(readme.find("3 interrupted or a node lost"), std::string::npos)
      << "README does not document exit status 3";
  int restarting = 0;
  for (const auto& dir : JobSetKustomizations()) {
    const std::string name = fs::path(dir).filename().string();
    SCOPED_TRACE(name);
    auto docs = Render(t, dir);
    const YAML::Node js = docs["JobSet/ckptbench"];
    ASSERT_TRUE(js);
    CheckWritten(js);
    if (HasFailure()) continue;
    const YAML::Node policy = js["spec"]["failurePolicy"];
    for (const YAML::Node& j : js["spec"]["replicatedJobs"]) {
      const std::string job = j["name"].as<std::string>();
      const YAML::Node pfp = j["template"]["spec"]["podFailurePolicy"];
      const std::string main_container =
          PodSpec(js, job == "coordinator" ? 0 : 1)["containers"][0]["name"]
              .as<std::string>();
      // 1 (a failed run) and 2 (input to fix): the Job fails
      // (PodFailurePolicy) and the JobSet with it.
      for (int code : {1, 2}) {
        EXPECT_EQ(PodAction(pfp, main_container, code, false), "FailJob")
            << job << " exit " << code;
      }
      EXPECT_EQ(JobSetAction(policy, job, "PodFailurePolicy"), "FailJobSet")
          << job;
      // Out of time: no restart either (it would wait as long again).
      EXPECT_EQ(JobSetAction(policy, job, "DeadlineExceeded"), "FailJobSet")
          << job;
      // 3 (interrupted, a node lost), a signal's 137, and a disrupted
      // pod whatever it exited with: counted, so the Job fails with
      // BackoffLimitExceeded (backoffLimit 0), which no rule stops: the
      // JobSet restarts while maxRestarts allows.
      for (int code : {3, 137}) {
        EXPECT_EQ(PodAction(pfp, main_container, code, false), "Count")
            << job << " exit " << code;
      }
      for (int code : {1, 2, 3}) {
        EXPECT_EQ(PodAction(pfp, main_container, code, true), "Count")
            << job << " disrupted, exit " << code;
      }
      const std::string backoff =
          JobSetAction(policy, job, "BackoffLimitExceeded");
      EXPECT_TRUE(backoff.empty() || backoff.rfind("Restart", 0) == 0)
          << job << ": " << backoff;
    }
    // A sweep (the sweep and dataloading overlays) restarts, and resumes:
    // a restart finishes what is missing. A single run is reported, not
    // re-run.
    const YAML::Node args = PodSpec(js, 0)["containers"][0]["args"];
    const bool sweep = args[0].as<std::string>() == "sweep";
    bool resume = false;
    for (const YAML::Node& a : args)
      resume |= a.as<std::string>() == "--resume";
    const int max_restarts = policy["maxRestarts"].as<int>(0);
    if (sweep) {
      ++restarting;
      EXPECT_TRUE(resume) << "a restarted sweep must --resume";
      EXPECT_GE(max_restarts, 1);
    } else {
      EXPECT_EQ(max_restarts, 0);
    }
  }
  EXPECT_EQ(restarting, 2);  // sweep, dataloading
}

}  // namespace
}  // namespace ckpt
