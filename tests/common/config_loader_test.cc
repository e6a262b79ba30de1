#include "common/config_loader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/checkpoint/checkpoint_options.h"
#include "common/cuda.h"
#include "common/dataset/dataset_options.h"
#include "common/text.h"
#include "coordinator/config_checks.h"
#include "tests/testing/source_dir.h"

namespace ckpt {
namespace {

struct FakeEnv {
  std::map<std::string, std::string> vars;
  std::function<const char*(const char*)> Fn() {
    return [this](const char* n) -> const char* {
      auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

std::string WriteYaml(const std::string& text) {
  char name[] = "/tmp/ckptbench-config-XXXXXX";
  int fd = mkstemp(name);
  close(fd);
  std::ofstream(name) << text;
  return name;
}

TEST(LoadConfig, DefaultsMatchDesign) {
  FakeEnv env;
  auto c = LoadConfig({"", {}, env.Fn(), {}, {}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->config.model.num_layers, 10);
  EXPECT_EQ(CheckpointOf(c->config).num_save_calls, 3);
  EXPECT_EQ(CheckpointOf(c->config).num_load_calls, 3);
  EXPECT_EQ(c->config.cluster.num_nodes, 1);
  EXPECT_EQ(c->config.cluster.num_devices, "auto");
  EXPECT_EQ(c->config.model.name, "transformer");
  EXPECT_EQ(CheckpointOf(c->config).mode, RunMode::kSaveAndLoad);
  EXPECT_EQ(c->sources.at("run.num_save_calls"), "default");
}

TEST(LoadConfig, PrecedenceCliOverEnvOverYamlOverDefault) {
  std::string yaml = WriteYaml(
      "model:\n  num_layers: 7\nrun:\n  num_save_calls: 5\n  num_load_calls: "
      "6\n"
      "io:\n  block_size: 1MiB\n");
  FakeEnv env;
  env.vars = {{"NUM_SAVE_CALLS", "2"}, {"NUM_LOAD_CALLS", "4"}};
  auto c = LoadConfig({yaml, {"NUM_LOAD_CALLS=0"}, env.Fn(), {}, {}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->config.model.num_layers, 7);              // yaml
  EXPECT_EQ(CheckpointOf(c->config).num_save_calls, 2);  // env beats yaml
  EXPECT_EQ(CheckpointOf(c->config).num_load_calls, 0);  // cli beats env
  EXPECT_EQ(c->config.io.block_size, 1u << 20);
  EXPECT_EQ(c->sources.at("model.num_layers"), yaml + ":2");
  EXPECT_EQ(c->sources.at("run.num_save_calls"), "environment");
  EXPECT_EQ(c->sources.at("run.num_load_calls"), "command line");
  std::remove(yaml.c_str());
}

TEST(LoadConfig, EnvNamesWorkAsOverrideKeysAndDottedKeysToo) {
  FakeEnv env;
  auto c =
      LoadConfig({"",
                  {"NUM_LAYERS=3", "run.mode=load-only", "CKPT_MODEL=llama-7b"},
                  env.Fn(),
                  {},
                  {}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->config.model.num_layers, 3);
  EXPECT_EQ(CheckpointOf(c->config).mode, RunMode::kLoadOnly);
  EXPECT_EQ(c->config.model.name, "llama-7b");
}

TEST(LoadConfig, BadNumberFromEnvNamesKeyValueAndExpectation) {
  FakeEnv env;
  env.vars = {{"NUM_SAVE_CALLS", "abc"}};
  auto c = LoadConfig({"", {}, env.Fn(), {}, {}});
  ASSERT_FALSE(c.ok());
  std::string msg(c.status().message());
  EXPECT_EQ(msg,
            "environment: NUM_SAVE_CALLS (run.num_save_calls) = 'abc': "
            "expected an integer from 0 to 2147483647");
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(LoadConfig, MisspelledYamlKeyNamesFileLineAndSuggests) {
  std::string yaml =
      WriteYaml("run:\n  num_save_calls: 1\n  num_laod_calls: 2\n");
  FakeEnv env;
  auto c = LoadConfig({yaml, {}, env.Fn(), {}, {}});
  ASSERT_FALSE(c.ok());
  std::string msg(c.status().message());
  EXPECT_NE(msg.find(yaml + ":3: unknown key 'run.num_laod_calls'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("did you mean 'run.num_load_calls'"), std::string::npos)
      << msg;
  std::remove(yaml.c_str());
}

TEST(LoadConfig, RejectsBadValues) {
  FakeEnv env;
  struct Case {
    std::string override_, want;
  } cases[] = {
      {"io.block_size=12parsecs",
       "io.block_size (CKPT_BLOCK_SIZE) = '12parsecs': expected a byte size"},
      {"NUM_DEVICES=0",
       "NUM_DEVICES (cluster.num_devices) = '0': expected auto or an integer "
       "from 1 to 2147483647"},
      {"CKPT_MODE=both", "expected one of save+load, save-only, load-only"},
      {"io.fsync=maybe", "expected true or false"},
      {"NUM_LAYERS=-2", "expected an integer from 1 to 2147483647"},
      // Issue 27: a number past the int range is not "an integer >= 0".
      {"CKPT_NODE_INDEX=2147483648",
       "CKPT_NODE_INDEX (control.node_index) = '2147483648': expected auto or "
       "an integer from 0 to 2147483647"},
      {"nonsense", "expected key=value"},
      {"NUM_LAYRES=2", "did you mean 'NUM_LAYERS'"},
      // Issue 49: a single PUT past S3's 5 GiB would fail after 5 GiB sent.
      {"s3.multipart_threshold=6GiB",
       "s3.multipart_threshold (CKPT_S3_MULTIPART_THRESHOLD) = '6GiB': "
       "expected a byte size up to 5GiB (S3's largest single PUT)"},
  };
  EXPECT_TRUE(
      LoadConfig({"", {"s3.multipart_threshold=5GiB"}, env.Fn(), {}, {}}).ok());
  for (const auto& tc : cases) {
    auto c = LoadConfig({"", {tc.override_}, env.Fn(), {}, {}});
    ASSERT_FALSE(c.ok()) << tc.override_;
    EXPECT_NE(std::string(c.status().message()).find(tc.want),
              std::string::npos)
        << c.status().message();
  }
}

// One bound per key, the node's (common/dataset/dataset_options.h): the key
// table refused nothing up to 2^31 - 1, and the node refused at prepare (exit
// 1).
TEST(LoadConfig, DataloadBoundsAreTheNodes) {
  FakeEnv env;
  for (const auto& [override_, want] :
       std::vector<std::pair<std::string, std::string>>{
           {"CKPT_NUM_WORKERS=257",
            "(dataload.num_workers) = '257': expected an integer from 1 to "
            "256"},
           {"CKPT_PREFETCH_FACTOR=65",
            "(dataload.prefetch_factor) = '65': expected an integer from 1 to "
            "64"}}) {
    auto c = LoadConfig({"", {override_}, env.Fn(), {}, {}});
    ASSERT_FALSE(c.ok()) << override_;
    EXPECT_NE(c.status().message().find(want), std::string::npos) << c.status();
  }
  auto c = LoadConfig({"",
                       {"CKPT_WORKLOAD=dataload", "NUM_DEVICES=2000",
                        "CKPT_DATASET_PATH=/tmp/ds"},
                       env.Fn(),
                       {},
                       {}});
  ASSERT_TRUE(c.ok()) << c.status();
  absl::Status s = ValidateConfig(c->config, true);
  EXPECT_NE(s.message().find("cluster.num_devices (NUM_DEVICES) = 2000 with "
                             "run.workload = dataload: expected at most 1024"),
            std::string::npos)
      << s;
}

TEST(LoadConfig, YamlListIsAnErrorWithLine) {
  std::string yaml = WriteYaml("model:\n  num_layers:\n    - 1\n    - 2\n");
  FakeEnv env;
  auto c = LoadConfig({yaml, {}, env.Fn(), {}, {}});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(std::string(c.status().message()).find("found a list"),
            std::string::npos);
  std::remove(yaml.c_str());
}

TEST(LoadConfig, YamlListOfMapsIsAnErrorToo) {
  std::string yaml = WriteYaml("model:\n  - name: transformer\n");
  FakeEnv env;
  auto c = LoadConfig({yaml, {}, env.Fn(), {}, {}});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(std::string(c.status().message()).find("found a list"),
            std::string::npos)
      << c.status();
  std::remove(yaml.c_str());
}

TEST(LoadConfig, AnExperimentFileIsPointedToSweep) {
  std::string yaml = WriteYaml("sweep:\n  NUM_LAYERS: [1, 2]\n");
  FakeEnv env;
  auto c = LoadConfig({yaml, {}, env.Fn(), {}, {}});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(std::string(c.status().message()).find("ckptbench sweep"),
            std::string::npos)
      << c.status();
  std::remove(yaml.c_str());
}

// Issue 14, case 11: a key given twice was accepted (last wins).
TEST(LoadConfig, DuplicateYamlKeysAreErrorsNamingBothLines) {
  FakeEnv env;
  std::string twice =
      WriteYaml("io:\n  block_size: 1MiB\n  block_size: 2MiB\n");
  auto c = LoadConfig({twice, {}, env.Fn(), {}, {}});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            twice +
                ":3: key 'io.block_size' is given twice (first at line 2); "
                "expected each key once");
  // The same key by its env-var alias counts too.
  std::string alias =
      WriteYaml("io:\n  block_size: 1MiB\nCKPT_BLOCK_SIZE: 2MiB\n");
  c = LoadConfig({alias, {}, env.Fn(), {}, {}});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find(
                ":3: key 'CKPT_BLOCK_SIZE' sets io.block_size, already set at "
                "line 2"),
            std::string::npos)
      << c.status();
  std::remove(twice.c_str());
  std::remove(alias.c_str());
}

// Issue 14, case 11: --config DIR read as an empty file.
TEST(LoadConfig, ADirectoryIsNotAConfigFile) {
  FakeEnv env;
  auto c = LoadConfig({"/tmp", {}, env.Fn(), {}, {}});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "--config /tmp: is a directory; expected a YAML file");
}

// Issue 27: a FIFO as --config hung in open(2); it is refused by kind.
TEST(LoadConfig, AFifoIsNotAConfigFileAndDoesNotBlock) {
  char tmpl[] = "/tmp/ckpt_fifo_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string fifo = std::string(tmpl) + "/exp.yaml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  FakeEnv env;
  auto c = LoadConfig({fifo, {}, env.Fn(), {}, {}});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "--config " + fifo + " is a FIFO: expected a regular file");
  std::remove(fifo.c_str());
  rmdir(tmpl);
}

// The backend settings are read from the environment here, once: the
// keys' own variables first, other tools' names for the same setting only
// when no source set the key (a node never reads them: BackendOptions).
TEST(LoadConfig, BackendSettingsFromOtherToolsVariablesOnlyWhenUnset) {
  FakeEnv env;
  env.vars = {{"AWS_ENDPOINT_URL", "http://10.0.0.9:9000"},
              {"AWS_DEFAULT_REGION", "eu-north-1"},
              {"STORAGE_EMULATOR_HOST", "127.0.0.1:4443"}};
  auto c = LoadConfig({"", {}, env.Fn(), {}, {}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->config.s3.endpoint, "http://10.0.0.9:9000");
  EXPECT_EQ(c->config.s3.region, "eu-north-1");
  // The emulator host may name no scheme: plain HTTP, as Google's
  // libraries take it; and it means no credentials.
  EXPECT_EQ(c->config.gcs.endpoint, "http://127.0.0.1:4443");
  EXPECT_TRUE(c->config.gcs.anonymous);
  EXPECT_EQ(c->sources.at("s3.region"), "environment (AWS_DEFAULT_REGION)");
  EXPECT_EQ(BackendOptionsOf(c->config).s3.region, "eu-north-1");

  // The keys' own variables win over the others...
  env.vars["AWS_ENDPOINT_URL_S3"] = "http://10.0.0.5:9000";
  env.vars["AWS_REGION"] = "us-west-2";
  env.vars["CKPT_GCS_ENDPOINT"] = "https://gcs.example:8443";
  c = LoadConfig({"", {}, env.Fn(), {}, {}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->config.s3.endpoint, "http://10.0.0.5:9000");
  EXPECT_EQ(c->config.s3.region, "us-west-2");
  EXPECT_EQ(c->config.gcs.endpoint, "https://gcs.example:8443");

  // ...and so does any source that set the key, a file's included.
  env.vars.erase("AWS_ENDPOINT_URL_S3");
  env.vars.erase("AWS_REGION");
  env.vars.erase("CKPT_GCS_ENDPOINT");
  std::string yaml =
      WriteYaml("s3:\n  region: ap-south-1\ngcs:\n  endpoint: http://own:1\n");
  c = LoadConfig({yaml, {"s3.endpoint=http://cli:2"}, env.Fn(), {}, {}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->config.s3.region, "ap-south-1");
  EXPECT_EQ(c->config.gcs.endpoint, "http://own:1");
  EXPECT_EQ(c->config.s3.endpoint, "http://cli:2");
  std::remove(yaml.c_str());

  // A file that writes the defaults out (conf/local-disk.yaml does) leaves
  // the variables their say; STORAGE_EMULATOR_HOST also means no
  // credentials.
  yaml = WriteYaml(
      "s3:\n  endpoint: \"\"\n  region: us-east-1\ngcs:\n  endpoint: \"\"\n"
      "  anonymous: false\n");
  env.vars = {{"AWS_ENDPOINT_URL", "http://10.0.0.9:9000"},
              {"AWS_DEFAULT_REGION", "eu-north-1"},
              {"STORAGE_EMULATOR_HOST", "127.0.0.1:4443"}};
  c = LoadConfig({yaml, {}, env.Fn(), {}, {}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->config.s3.endpoint, "http://10.0.0.9:9000");
  EXPECT_EQ(c->config.s3.region, "eu-north-1");
  EXPECT_EQ(c->config.gcs.endpoint, "http://127.0.0.1:4443");
  EXPECT_TRUE(c->config.gcs.anonymous);
  EXPECT_TRUE(BackendOptionsOf(c->config).gcs.anonymous);
  std::remove(yaml.c_str());

  // An empty variable is unset.
  env.vars = {{"STORAGE_EMULATOR_HOST", ""}, {"AWS_DEFAULT_REGION", ""}};
  c = LoadConfig({"", {}, env.Fn(), {}, {}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->config.gcs.endpoint, "");
  EXPECT_FALSE(c->config.gcs.anonymous);
  EXPECT_EQ(c->config.s3.region, "us-east-1");
  EXPECT_EQ(c->sources.at("gcs.endpoint"), "default");
}

// The manifests' placeholders (names under .invalid, RFC 2606) stop a run
// before anything, naming the setting; real names, IPs and ports pass.
TEST(ValidateConfig, PlaceholderEndpointsAndBucketsAreRefused) {
  auto message = [](const Config& c) {
    return std::string(ValidateConfig(c, true).message());
  };
  Config c;
  c.storage.path = "s3://your-bucket.invalid/ckptbench";
  EXPECT_NE(message(c).find("storage.path (CKPT_DIR_PATH) = "
                            "'s3://your-bucket.invalid/ckptbench' is a "
                            "placeholder (a name under .invalid"),
            std::string::npos)
      << message(c);
  EXPECT_NE(message(c).find("expected s3://YOUR-BUCKET/PREFIX"),
            std::string::npos);
  c.storage.path = "gs://BUCKET.INVALID.";
  EXPECT_NE(message(c).find("is a placeholder"), std::string::npos);
  c.storage.path = "s3://ckptbench/checkpoints";
  DatasetOf(c).path = "s3://x.invalid/ds";
  EXPECT_NE(message(c).find("dataset.path (CKPT_DATASET_PATH)"),
            std::string::npos);
  DatasetOf(c).path = "";
  c.s3.endpoint = "http://user@your-s3-server.invalid:9000/";
  EXPECT_NE(message(c).find("s3.endpoint (AWS_ENDPOINT_URL_S3) = "
                            "'http://user@your-s3-server.invalid:9000/' is a "
                            "placeholder"),
            std::string::npos)
      << message(c);
  EXPECT_NE(message(c).find("expected your server's URL"), std::string::npos);
  c.s3.endpoint = "";
  c.gcs.endpoint = "storage.invalid:4443";
  EXPECT_NE(message(c).find("gcs.endpoint (CKPT_GCS_ENDPOINT)"),
            std::string::npos);
  // Names that only contain the word, and addresses, are real ones.
  c.gcs.endpoint = "http://invalid.example.com:4443";
  c.s3.endpoint = "http://[::1]:9000";
  c.storage.path = "s3://invalid-bucket/x";
  EXPECT_TRUE(ValidateConfig(c, true).ok()) << ValidateConfig(c, true);
  c.s3.endpoint = "https://s3.storage.svc:9000";
  EXPECT_TRUE(ValidateConfig(c, true).ok());
}

TEST(ValidateConfig, GpuAndMissingPathAndDirectAlignment) {
  Config c;
  c.storage.path = "/tmp/x";
  EXPECT_TRUE(ValidateConfig(c, true).ok());
  c.cluster.accelerator = Accelerator::kGpu;
#ifdef CKPT_HAVE_CUDA
  // Built with GPU support: whether a node has a GPU is the node's to say
  // (the coordinator's preflight asks every node)...
  c.cluster.num_devices = "2";
  EXPECT_TRUE(ValidateConfig(c, true).ok());
  // ...but NUM_DEVICES=auto counts this process's GPUs: none is an error.
  c.cluster.num_devices = "auto";
  if (!cuda::DeviceCount().ok()) {
    EXPECT_NE(std::string(ValidateConfig(c, true).message())
                  .find("NUM_DEVICES) = auto with ACCELERATOR=gpu"),
              std::string::npos);
  }
#else
  EXPECT_NE(
      std::string(ValidateConfig(c, true).message()).find("no GPU support"),
      std::string::npos);
#endif
  c.cluster.accelerator = Accelerator::kCpu;
  CheckpointOf(c).async =
      true;  // async saves overlap a training interval: needs one
  EXPECT_NE(std::string(ValidateConfig(c, true).message())
                .find("run.async (CKPT_ASYNC) = true needs run.interval"),
            std::string::npos);
  CheckpointOf(c).interval = 5;
  EXPECT_TRUE(ValidateConfig(c, true).ok());
  CheckpointOf(c).interval = 0;
  CheckpointOf(c).mode =
      RunMode::kLoadOnly;  // no save to overlap: nothing to check
  EXPECT_TRUE(ValidateConfig(c, true).ok());
  CheckpointOf(c).mode = RunMode::kSaveAndLoad;
  CheckpointOf(c).async = false;
  c.storage.path = "";
  EXPECT_NE(
      std::string(ValidateConfig(c, true).message()).find("CKPT_DIR_PATH"),
      std::string::npos);
  EXPECT_TRUE(ValidateConfig(c, false).ok());
  c.storage.path = "/tmp/x";
  c.io.direct_read = true;
  c.io.block_size = 4096 * 3 + 512;
  EXPECT_FALSE(ValidateConfig(c, true).ok());
}

// Object-store URIs without a bucket and file URIs with a host were taken
// for relative local paths ("s3:/checkpoints" in the working directory).
TEST(ValidateConfig, UrisWithoutBucketOrWithAHostAreRefused) {
  for (std::string bad : {"s3://", "s3:///", "s3:///x", "gs://", "gs:///x",
                          "file://host/x", "file://"}) {
    Config c;
    c.storage.path = bad;
    absl::Status s = ValidateConfig(c, true);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << bad;
    EXPECT_NE(std::string(s.message()).find("CKPT_DIR_PATH) = '" + bad + "'"),
              std::string::npos)
        << s;
    c.storage.path = "/tmp/x";
    c.storage.restore_path = bad;
    EXPECT_NE(std::string(ValidateConfig(c, true).message())
                  .find("CKPT_RESTORE_PATH) = '" + bad + "'"),
              std::string::npos)
        << bad;
  }
  for (std::string good :
       {"s3://b", "s3://b/p/q", "gs://b/p", "file:///x", "/abs", "rel/dir"}) {
    Config c;
    c.storage.path = good;
    EXPECT_TRUE(ValidateConfig(c, true).ok()) << good;
  }
}

// conf/local-disk.yaml documents every key with its default: it must load,
// name each key exactly once, and agree with the built-in defaults.
TEST(LoadConfig, ShippedLocalDiskYamlListsEveryKeyWithDefaults) {
  std::string path = SourceDir() + "/conf/local-disk.yaml";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto entries = FlattenYaml(ss.str(), path);
  ASSERT_TRUE(entries.ok()) << entries.status();
  std::set<std::string> listed;
  for (const auto& e : *entries) listed.insert(e.key);
  for (const auto& k : ConfigKeys()) EXPECT_TRUE(listed.count(k.key)) << k.key;
  EXPECT_EQ(listed.size(), ConfigKeys().size());
  FakeEnv env;
  auto c = LoadConfig({path, {}, env.Fn(), {}, {}});
  ASSERT_TRUE(c.ok()) << c.status();
  Config defaults;
  for (const auto& k : ConfigKeys()) {
    if (k.key == "storage.path") continue;
    EXPECT_EQ(k.get(c->config), k.get(defaults)) << k.key;
  }
}

TEST(Text, ClosestMatch) {
  EXPECT_EQ(ClosestMatch("NUM_SAVE_CALS", {"NUM_SAVE_CALLS", "NUM_LOAD_CALLS"}),
            "NUM_SAVE_CALLS");
  EXPECT_EQ(ClosestMatch("completely_else", {"NUM_SAVE_CALLS"}), "");
}

TEST(ConfigKeys, DurationsTakeSecondsOrAUnitAndNameWhatTheyExpect) {
  Config c;
  ASSERT_TRUE(FindKey("CKPT_MTTF")->set(c, "24h").ok());
  EXPECT_EQ(CheckpointOf(c).mttf, 86400);
  ASSERT_TRUE(FindKey("run.interval")->set(c, "90").ok());
  EXPECT_EQ(CheckpointOf(c).interval, 90);
  ASSERT_TRUE(FindKey("run.interval")->set(c, "1.5m").ok());
  EXPECT_EQ(CheckpointOf(c).interval, 90);
  ASSERT_TRUE(FindKey("run.mttf")->set(c, "2d").ok());
  EXPECT_EQ(CheckpointOf(c).mttf, 172800);
  ASSERT_TRUE(FindKey("run.mttf")->set(c, "0").ok());  // off
  EXPECT_EQ(CheckpointOf(c).mttf, 0);
  for (const char* bad : {"", "h", "-5", "5x", "1e12", "ten"}) {
    absl::Status s = FindKey("run.mttf")->set(c, bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(std::string(s.message()).find("30m or 24h"), std::string::npos)
        << s;
  }
  ASSERT_TRUE(FindKey("CKPT_STAGING")->set(c, "pageable").ok());
  EXPECT_EQ(c.cluster.staging, HostStaging::kPageable);
  EXPECT_FALSE(FindKey("CKPT_STAGING")->set(c, "unified").ok());
}

}  // namespace
}  // namespace ckpt
