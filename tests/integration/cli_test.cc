// End to end through the ckptbench binary: the acceptance checks.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Tests evict per file (fadvise): dropping the host's caches would slow
// everything else running on the machine.
std::map<std::string, std::string> Env(
    const TempDir& t, std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> env = {{"CKPT_DIR_PATH", t.Sub("ckpt")},
                                            {"CKPT_CACHE_MODE", "fadvise"},
                                            {"NUM_DEVICES", "2"}};
  for (auto& [k, v] : extra) env[k] = v;
  return env;
}

int CountLines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

TEST(Cli, SaveLoadRunWritesResultsAndTable) {
  TempDir t;
  auto r = RunCkptbench({"run", "--results-dir", t.Sub("res")},
                        Env(t, {{"NUM_LAYERS", "4"},
                                {"NUM_SAVE_CALLS", "2"},
                                {"NUM_LOAD_CALLS", "2"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["schema"], "ckptbench.result/v1");
  EXPECT_EQ(j["status"], "ok");
  int saves = 0, loads = 0;
  for (const auto& round : j["rounds"]) {
    EXPECT_GT(round["bytes"].get<uint64_t>(), 0u);
    EXPECT_GT(round["seconds"].get<double>(), 0);
    EXPECT_GT(round["throughput_mib_s"].get<double>(), 0);
    if (round["phase"] == "save") ++saves;
    if (round["phase"] == "load") {
      ++loads;
      EXPECT_TRUE(round["verified"].get<bool>());
      EXPECT_EQ(round["page_cache"]["method"], "fadvise_dontneed");
      EXPECT_EQ(round["page_cache"]["resident_bytes_at_start"], 0);
    }
    EXPECT_EQ(round["op_latency"].contains(round["phase"] == "save" ? "write"
                                                                    : "read"),
              true);
  }
  EXPECT_EQ(saves, 2);
  EXPECT_EQ(loads, 2);
  EXPECT_EQ(j["summary"]["load"]["count"], 2);
  EXPECT_EQ(j["config"]["model.num_layers"]["source"], "environment");
  EXPECT_FALSE(j["environment"]["filesystem"].get<std::string>().empty());
  EXPECT_NE(r.out.find("save   1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("load   2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verified"), std::string::npos);
  // Only the newest committed step is kept.
  EXPECT_TRUE(fs::exists(t.Sub("ckpt/checkpoints/step-2/.metadata")));
  EXPECT_FALSE(fs::exists(t.Sub("ckpt/checkpoints/step-1")));
  EXPECT_TRUE(fs::exists(t.Sub("ckpt/checkpoints/step-2/__1_0.distcp")));
}

TEST(Cli, CleanupRemovesOnlyStepsThisRunWrote) {
  TempDir t;
  auto env = Env(
      t,
      {{"NUM_LAYERS", "2"}, {"NUM_SAVE_CALLS", "2"}, {"NUM_LOAD_CALLS", "0"}});
  ASSERT_EQ(RunCkptbench({"run", "--results-dir", t.Sub("res")}, env).exit_code,
            0);
  // The first run kept its newest step, step-2. A second run writes 3 and 4
  // and removes 3, its own, but not step-2, which it did not write.
  auto r = RunCkptbench({"run", "--results-dir", t.Sub("res2")}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(t.Sub("ckpt/checkpoints/step-1")));
  EXPECT_TRUE(fs::exists(t.Sub("ckpt/checkpoints/step-2/.metadata")));
  EXPECT_TRUE(fs::exists(t.Sub("ckpt/checkpoints/step-2/__0_0.distcp")));
  EXPECT_FALSE(fs::exists(t.Sub("ckpt/checkpoints/step-3")));
  EXPECT_TRUE(fs::exists(t.Sub("ckpt/checkpoints/step-4/.metadata")));
  EXPECT_NE(r.out.find("left 1 older committed step(s)"), std::string::npos)
      << r.out;
}

TEST(Cli, FlippedByteFailsLoadOnlyNamingTheFileAndStillWritesResults) {
  TempDir t;
  auto env = Env(
      t,
      {{"NUM_LAYERS", "2"}, {"NUM_SAVE_CALLS", "1"}, {"NUM_LOAD_CALLS", "1"}});
  ASSERT_EQ(RunCkptbench({"run", "--save-only"}, env).exit_code, 0);
  std::string victim = t.Sub("ckpt/checkpoints/step-1/__1_0.distcp");
  {
    std::fstream f(victim, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(5000);
    f.put('\x5a');
  }
  auto r =
      RunCkptbench({"run", "--load-only", "--results-dir", t.Sub("res")}, env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(victim), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at byte offset 5000"), std::string::npos) << r.err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["errors"][0].get<std::string>().find(victim), std::string::npos);
  EXPECT_EQ(j["rounds"][0]["status"], "failed");
}

TEST(Cli, BadNumberIsOneLineNamingTheKey) {
  TempDir t;
  auto r = RunCkptbench({"run"}, Env(t, {{"NUM_SAVE_CALLS", "abc"}}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("NUM_SAVE_CALLS"), std::string::npos);
  EXPECT_NE(r.err.find("'abc'"), std::string::npos);
  EXPECT_FALSE(fs::exists(t.Sub("ckpt/checkpoints")));  // nothing ran
}

TEST(Cli, MisspelledYamlKeyIsOneLineWithFileLineAndSuggestion) {
  TempDir t;
  std::ofstream(t.Sub("exp.yaml"))
      << "model:\n  num_layers: 2\nrun:\n  num_save_cals: 1\n";
  auto r = RunCkptbench(
      {"run", "--config", t.Sub("exp.yaml"), "--results-dir", t.Sub("res")},
      Env(t));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_NE(
      r.err.find(t.Sub("exp.yaml") + ":4: unknown key 'run.num_save_cals'"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("did you mean 'run.num_save_calls'"), std::string::npos)
      << r.err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_TRUE(j["rounds"].empty());
}

TEST(Cli, ClearErrorsBeforeAnyRound) {
  TempDir t;
  // No GPU here: a build without GPU support says so; one with it finds
  // none on the node, in the preflight, before any round.
  auto gpu = RunCkptbench({"run"}, Env(t, {{"ACCELERATOR", "gpu"}}));
  EXPECT_EQ(gpu.exit_code, 2) << gpu.err;
  EXPECT_TRUE(gpu.err.find("no GPU support") != std::string::npos ||
              gpu.err.find("no usable GPU") != std::string::npos ||
              gpu.err.find("no GPU on this node") != std::string::npos)
      << gpu.err;
  std::ofstream(t.Sub("a-file")) << "x";
  auto unwritable =
      RunCkptbench({"run"}, Env(t, {{"CKPT_DIR_PATH", t.Sub("a-file/sub")}}));
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.err.find("CKPT_DIR_PATH"), std::string::npos)
      << unwritable.err;
  EXPECT_NE(unwritable.err.find(t.Sub("a-file/sub")), std::string::npos)
      << unwritable.err;
  auto missing = RunCkptbench({"run"}, {{"NUM_LAYERS", "2"}});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("CKPT_DIR_PATH"), std::string::npos);
  auto s3 = RunCkptbench({"run"}, Env(t, {{"CKPT_DIR_PATH", "s3://bucket/x"}}));
  EXPECT_EQ(s3.exit_code, 2);
}

TEST(Cli, LoadOnlyStagesThenNeverOverwritesAndRefusesOtherPlans) {
  TempDir t;
  auto env = Env(t, {{"NUM_LAYERS", "2"}, {"NUM_LOAD_CALLS", "1"}});
  auto first =
      RunCkptbench({"run", "--load-only", "--results-dir", t.Sub("r1")}, env);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  json j = json::parse(ReadFile(t.Sub("r1/result.json")));
  EXPECT_TRUE(j["rounds"][0]["staged"].get<bool>());
  EXPECT_NE(j["notes"][0].get<std::string>().find("staged step-1"),
            std::string::npos);
  std::string meta = t.Sub("ckpt/checkpoints/step-1/.metadata");
  auto before =
      fs::last_write_time(t.Sub("ckpt/checkpoints/step-1/__0_0.distcp"));
  auto second = RunCkptbench({"run", "--load-only"}, env);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(before,
            fs::last_write_time(t.Sub("ckpt/checkpoints/step-1/__0_0.distcp")));
  EXPECT_FALSE(fs::exists(t.Sub("ckpt/checkpoints/step-2")));
  auto other = RunCkptbench({"run", "--load-only", "NUM_LAYERS=3"}, env);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("different model"), std::string::npos) << other.err;
}

TEST(Cli, SigintAbortsTheRoundAndStillWritesResults) {
  TempDir t;
  // 2 ranks of llama3-8b's reference layout: 26 GiB in 2 tensors, so the
  // save is still running when the signal comes and planning is instant.
  auto env = Env(t, {{"CKPT_MODEL", "llama3-8b"},
                     {"NUM_SAVE_CALLS", "2"},
                     {"CKPT_BLOCK_SIZE", "1MiB"},
                     {"CKPT_PROGRESS_INTERVAL", "0.3"}});
  Process p(
      {CkptbenchBinary(), "run", "--save-only", "--results-dir", t.Sub("res")},
      env);
  ASSERT_TRUE(p.WaitForOutput("progress: save 1  ", 60)) << p.Err();
  p.Signal(SIGINT);
  EXPECT_EQ(p.Wait(30), 3) << p.Err();  // interrupted
  std::string err = p.Err();
  EXPECT_NE(err.find("SIGINT"), std::string::npos) << err;
  // Not a terminal: plain periodic progress lines.
  EXPECT_NE(err.find("MiB/s  ETA"), std::string::npos) << err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["errors"].back().get<std::string>().find("interrupted by SIGINT"),
            std::string::npos);
  ASSERT_EQ(j["rounds"].size(), 1u);
  EXPECT_EQ(j["rounds"][0]["status"], "failed");
  EXPECT_NE(j["rounds"][0]["error"].get<std::string>().find("aborted"),
            std::string::npos);
  // The interrupted save's step is removed, files and claim: nothing left.
  EXPECT_FALSE(fs::exists(t.Sub("ckpt/checkpoints/step-1"))) << err;
  EXPECT_TRUE(j["leftovers"].empty()) << j["leftovers"];
}

bool BlocksSigterm(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("SigBlk:", 0) == 0)
      return (std::stoull(line.substr(7), nullptr, 16) >> (SIGTERM - 1)) & 1;
  }
  return false;
}

TEST(Cli, SigtermBeforeAnyRoundStillEndsTheRun) {
  TempDir t;
  // A big plan keeps the process in planning for a moment.
  Process p({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
            Env(t, {{"NUM_LAYERS", "1000"}}));
  // Signal once the process has taken SIGTERM over (its main thread blocks
  // it for the watcher): before that, a loaded machine may still be
  // loading the binary, and the default action would end it.
  for (int i = 0; i < 500 && !BlocksSigterm(p.pid()); ++i) usleep(2000);
  p.Signal(SIGTERM);
  EXPECT_EQ(p.Wait(60), 3) << p.Err();
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["errors"].back().get<std::string>().find("SIGTERM"),
            std::string::npos);
}

TEST(Cli, ZeroCallsIsValid) {
  TempDir t;
  auto r =
      RunCkptbench({"run", "--results-dir", t.Sub("res")},
                   Env(t, {{"NUM_SAVE_CALLS", "0"}, {"NUM_LOAD_CALLS", "0"}}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_TRUE(j["rounds"].empty());
}

TEST(Cli, PlanAndKeys) {
  auto plan =
      RunCkptbench({"plan", "CKPT_MODEL=llama-7b", "NUM_DEVICES=8"}, {});
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("parameters   6889410560"), std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find("world        8"), std::string::npos);
  auto list = RunCkptbench({"plan", "--list"}, {});
  EXPECT_NE(list.out.find("llama3-405b"), std::string::npos);
  auto keys = RunCkptbench({"keys"}, {});
  EXPECT_NE(keys.out.find("run.num_save_calls\tNUM_SAVE_CALLS"),
            std::string::npos);
  auto bad = RunCkptbench({"rnu"}, {});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("did you mean 'run'"), std::string::npos);
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// Invalid UTF-8 in a path or in a garbage .metadata quoted by an error
// aborted the run (exit 134) before it wrote result.json.
TEST(Cli, InvalidUtf8InAPathOrAGarbageMetadataStillWritesResults) {
  TempDir t;
  auto r = RunCkptbench({"run", "-q", "--results-dir", t.Sub("r1")},
                        Env(t, {{"CKPT_DIR_PATH", t.Sub("ck\xFF")},
                                {"NUM_LAYERS", "1"},
                                {"NUM_SAVE_CALLS", "1"},
                                {"NUM_LOAD_CALLS", "1"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(ReadFile(t.Sub("r1/result.json")));
  EXPECT_EQ(j["config"]["storage.path"]["value"], t.Sub("ck\\xFF"));

  const std::string step = t.Sub("ck2/checkpoints/step-1");
  fs::create_directories(step);
  std::ofstream(step + "/.metadata") << "0\xFF\xFE\x80 not json";
  auto g = RunCkptbench(
      {"run", "-q", "--load-only", "--results-dir", t.Sub("r2")},
      Env(t, {{"CKPT_DIR_PATH", t.Sub("ck2")}, {"NUM_LAYERS", "1"}}));
  EXPECT_EQ(g.exit_code, 2) << g.err;
  json f = json::parse(ReadFile(t.Sub("r2/result.json")));
  EXPECT_EQ(f["status"], "failed");
  EXPECT_NE(f["errors"][0].get<std::string>().find("unreadable .metadata"),
            std::string::npos)
      << f["errors"];
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// -v printed no debug line at all: nothing in the code logged at that level.
TEST(Cli, VerboseAddsDebugLinesAndQuietRunsHaveNone) {
  TempDir t;
  auto env = Env(
      t,
      {{"NUM_LAYERS", "1"}, {"NUM_SAVE_CALLS", "1"}, {"NUM_LOAD_CALLS", "1"}});
  auto v = RunCkptbench({"run", "-v", "--results-dir", t.Sub("v")}, env);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.err.find("\nD "), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("load round 1: starting 1 node(s) together"),
            std::string::npos)
      << v.err;
  EXPECT_NE(v.err.find("page cache: fadvise_dontneed"), std::string::npos)
      << v.err;
  auto plain = RunCkptbench({"run", "--results-dir", t.Sub("p")}, env);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("\nD "), std::string::npos) << plain.err;
}

}  // namespace
}  // namespace ckpt
