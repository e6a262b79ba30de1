// Deployment as a user sets it up on top of the shipped manifests: one
// images: entry sets every container's image; every Job has the run's time
// limit; no overlay ships a Secret; a second copy under a name prefix shares
// no name or volumeHandle with the first (docs/deploy.md).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "tests/integration/deploy_testing.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// Every container of every ckptbench pod (an init container included),
// depth-first: {path, image}.
void Containers(const YAML::Node& n, const std::string& at,
                std::vector<std::pair<std::string, std::string>>* out) {
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const std::string key = kv.first.as<std::string>();
      if ((key == "containers" || key == "initContainers") &&
          kv.second.IsSequence()) {
        for (const YAML::Node& c : kv.second) {
          out->push_back({at + "/" + key + "/" + c["name"].as<std::string>(""),
                          c["image"].as<std::string>("")});
        }
      } else {
        Containers(kv.second, at + "/" + key, out);
      }
    }
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) {
      Containers(n[i], at + "/" + std::to_string(i), out);
    }
  }
}

constexpr char kImagePlaceholder[] =
    "ckptbench:set-your-image-with-kustomize-images";

// One image setting: every overlay's every container (the boot-disk init
// container too) shows the placeholder, which names what to set; a
// kustomization of the user's own on top with one `images:` entry, as
// docs/deploy.md writes it, sets them all. And every Job of every JobSet has
// the run's time limit (activeDeadlineSeconds), the same for the
// coordinator and the nodes, longer than the waits for registration: a pod
// that never starts ends the run instead of holding it forever. No overlay
// renders a Secret.
TEST(Deploy, OneImageSettingReachesEveryContainerEveryJobHasARunLimitNoSecret) {
  if (kKubectl.empty()) GTEST_SKIP() << "needs kubectl";
  TempDir t;
  const std::string docs_text = ReadFile(kSource + "/docs/deploy.md");
  EXPECT_NE(docs_text.find("images:\n- name: ckptbench\n  newName: "),
            std::string::npos)
      << "docs/deploy.md does not show the images: entry";
  int jobsets = 0;
  for (const auto& dir : JobSetKustomizations()) {
    const std::string name = fs::path(dir).filename().string();
    SCOPED_TRACE(name);
    auto docs = Render(t, dir);
    const fs::path mine = t.Sub("mine-" + name);
    fs::create_directories(mine);
    std::ofstream(mine / "kustomization.yaml")
        << "resources:\n- " << fs::relative(dir, mine).string()
        << "\nimages:\n- name: ckptbench\n  newName: "
           "registry.example.com/team/ckptbench\n  newTag: v7\n";
    auto set = Render(t, mine.string());
    ASSERT_TRUE(docs.count("JobSet/ckptbench")) << name;
    ++jobsets;
    // Secrets are the user's (docs/deploy.md: kubectl create secret):
    // applying an overlay never replaces one.
    for (const auto& [id, doc] : docs) {
      EXPECT_NE(id.rfind("Secret/", 0), 0u) << id << " is shipped";
    }
    std::vector<std::pair<std::string, std::string>> shipped, changed;
    Containers(docs["JobSet/ckptbench"], "", &shipped);
    Containers(set["JobSet/ckptbench"], "", &changed);
    ASSERT_GE(shipped.size(), 2u);
    ASSERT_EQ(shipped.size(), changed.size());
    for (size_t i = 0; i < shipped.size(); ++i) {
      EXPECT_EQ(shipped[i].second, kImagePlaceholder) << shipped[i].first;
      EXPECT_EQ(changed[i].second, "registry.example.com/team/ckptbench:v7")
          << changed[i].first;
    }
    const YAML::Node jobs = docs["JobSet/ckptbench"]["spec"]["replicatedJobs"];
    const int64_t register_timeout =
        docs["ConfigMap/ckptbench-config"]["data"]["CKPT_REGISTER_TIMEOUT"]
            .as<int64_t>(300);
    int64_t limit = -1;
    for (const YAML::Node& j : jobs) {
      const std::string job = j["name"].as<std::string>();
      const YAML::Node d = j["template"]["spec"]["activeDeadlineSeconds"];
      ASSERT_TRUE(d) << job << " has no activeDeadlineSeconds";
      if (limit < 0) limit = d.as<int64_t>();
      EXPECT_EQ(d.as<int64_t>(), limit) << job;
      EXPECT_GT(d.as<int64_t>(), 2 * register_timeout) << job;
    }
  }
  EXPECT_GE(jobsets, 13);  // base + 12 overlays
}

// Two runs in one namespace, as docs/deploy.md makes them: the same overlay
// under two prefixes shares no object name and no PV volumeHandle (the
// driver's rule: unique), every reference follows its object, and the docs
// name the binding the renamed ServiceAccount needs on each cloud.
TEST(Deploy, TwoPrefixesOfAnOverlayShareNoNameAndNoVolumeHandle) {
  if (kKubectl.empty()) GTEST_SKIP() << "needs kubectl";
  TempDir t;
  const std::string docs_text = ReadFile(kSource + "/docs/deploy.md");
  for (const char* binding :
       {"system:serviceaccount:NS:b-ckptbench", "--service-account b-ckptbench",
        "/subject/ns/NS/sa/b-ckptbench", "[NS/b-ckptbench]"}) {
    EXPECT_NE(docs_text.find(binding), std::string::npos) << binding;
  }
  for (const auto& dir : JobSetKustomizations()) {
    const std::string name = fs::path(dir).filename().string();
    SCOPED_TRACE(name);
    std::map<std::string, std::set<std::string>> names, handles;
    for (const char* prefix : {"a-", "b-"}) {
      const fs::path run = t.Sub(std::string(prefix) + name);
      fs::create_directories(run);
      std::ofstream(run / "kustomization.yaml")
          << "resources:\n- " << fs::relative(dir, run).string()
          << "\nnamePrefix: " << prefix << "\n";
      std::string text;
      for (const auto& [id, doc] : Render(t, run.string(), &text)) {
        EXPECT_EQ(doc["metadata"]["name"].as<std::string>().rfind(prefix, 0),
                  0u)
            << id << " is not renamed";
        names[prefix].insert(id);
        if (doc["spec"] && doc["spec"]["csi"] &&
            doc["spec"]["csi"]["volumeHandle"]) {
          handles[prefix].insert(
              doc["spec"]["csi"]["volumeHandle"].as<std::string>());
        }
      }
      // Every reference follows: no name of the unprefixed objects is left
      // but the results claim's, which is applied apart and shared.
      for (const char* old :
           {"name: ckptbench\n", "name: ckptbench-config\n",
            "claimName: ckptbench-s3\n", "serviceAccountName: ckptbench\n"}) {
        EXPECT_EQ(text.find(std::string(" ") + old), std::string::npos)
            << old << " is left under " << prefix;
      }
    }
    for (const auto& id : names["a-"]) {
      EXPECT_FALSE(names["b-"].count(id)) << id << " in both";
    }
    for (const auto& h : handles["a-"]) {
      EXPECT_FALSE(handles["b-"].count(h)) << "volumeHandle " << h;
    }
    if (name == "mountpoint-s3") {
      EXPECT_EQ(handles["a-"], std::set<std::string>{"a-ckptbench-s3"});
    }
  }
}

}  // namespace
}  // namespace ckpt
