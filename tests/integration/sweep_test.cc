// `ckptbench sweep`, `report` and `compare` end to end through the binary:
// the shipped smoke experiment (2 x 2 points, repeat 2) on local disk, the
// report in a real browser, interrupt + --resume, and strict validation.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "tests/testing/chromium.h"
#include "tests/testing/source_dir.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kSmoke = SourceDir() + "/conf/smoke.yaml";

std::map<std::string, std::string> Env(const TempDir& t) {
  return {{"CKPT_DIR_PATH", t.Sub("ckpt")}, {"HOME", t.path()}};
}

std::vector<std::string> RunDirs(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory()) out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

int CountLines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

TEST(Sweep, SmokeSweepWritesEveryRunCollatedCsvAndAReportChromiumDraws) {
  TempDir t;
  auto r = RunCkptbench({"sweep", kSmoke, "--results-dir", t.Sub("res"), "-q"},
                        Env(t));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> want = {
      "000-NUM_LAYERS=1,NUM_DEVICES=1,repeat=1",
      "001-NUM_LAYERS=1,NUM_DEVICES=2,repeat=1",
      "002-NUM_LAYERS=2,NUM_DEVICES=1,repeat=1",
      "003-NUM_LAYERS=2,NUM_DEVICES=2,repeat=1",
      "004-NUM_LAYERS=1,NUM_DEVICES=1,repeat=2",
      "005-NUM_LAYERS=1,NUM_DEVICES=2,repeat=2",
      "006-NUM_LAYERS=2,NUM_DEVICES=1,repeat=2",
      "007-NUM_LAYERS=2,NUM_DEVICES=2,repeat=2"};
  EXPECT_EQ(RunDirs(t.Sub("res")), want);
  std::map<std::string, uint64_t> bytes_by_layers;
  std::set<std::string> run_ids;
  for (size_t i = 0; i < want.size(); ++i) {
    json j = json::parse(ReadFile(t.Sub("res/" + want[i] + "/result.json")));
    EXPECT_EQ(j["status"], "ok") << want[i];
    EXPECT_EQ(j["sweep"]["index"], i);
    EXPECT_EQ(j["sweep"]["runs"], 8);
    EXPECT_EQ(j["sweep"]["repeat"], i < 4 ? 1 : 2);
    run_ids.insert(j["run_id"].get<std::string>());
    // The swept values reached the run, from the sweep, over the file.
    std::string layers = j["sweep"]["values"]["NUM_LAYERS"];
    EXPECT_EQ(j["config"]["model.num_layers"]["value"], layers);
    EXPECT_NE(j["config"]["model.num_layers"]["source"].get<std::string>().find(
                  "smoke.yaml:"),
              std::string::npos);
    EXPECT_EQ(j["plan"]["world_size"].dump(),
              j["sweep"]["values"]["NUM_DEVICES"].get<std::string>());
    bytes_by_layers[layers] = j["plan"]["checkpoint_bytes"];
    // Each point under its own sub-path of the storage target.
    std::string path = j["config"]["storage.path"]["value"];
    EXPECT_EQ(path, t.Sub("ckpt") + "/point-00" + std::to_string(i % 4));
    EXPECT_TRUE(fs::exists(path + "/checkpoints")) << path;
    for (const auto& round : j["rounds"]) {
      if (round["phase"] == "load") {
        EXPECT_TRUE(round["verified"].get<bool>());
      }
    }
  }
  EXPECT_EQ(run_ids.size(), 8u);
  EXPECT_LT(bytes_by_layers["1"], bytes_by_layers["2"]);

  json c = json::parse(ReadFile(t.Sub("res/collated_results.json")));
  EXPECT_EQ(c["schema"], "ckptbench.collated/v1");
  EXPECT_EQ(c["runs"].size(), 8u);
  ASSERT_EQ(c["points"].size(), 4u);
  for (const auto& p : c["points"]) {
    EXPECT_EQ(p["runs"], 2);
    EXPECT_EQ(p["save"]["rounds"], 2);
    EXPECT_EQ(p["save"]["run_mean_throughput_mib_s"].size(), 2u);
    EXPECT_GT(p["load"]["throughput_mib_s"]["mean"].get<double>(), 0);
  }
  std::string csv = ReadFile(t.Sub("res/results.csv"));
  EXPECT_EQ(CountLines(csv), 9);
  EXPECT_EQ(
      csv.rfind("index,run,point,repeat,NUM_LAYERS,NUM_DEVICES,status,", 0), 0u)
      << csv;

  std::string html = t.Sub("res/report.html");
  ASSERT_TRUE(fs::exists(html));
  std::string text = ReadFile(html);
  EXPECT_EQ(text.find("http://"), text.find("http://www.w3.org/2000/svg"))
      << "the report must not load anything over the network";
  EXPECT_EQ(text.find("https://"), std::string::npos);
  std::string dom, console;
  if (!RenderInChromium(t, html, &dom, &console)) {
    GTEST_SKIP() << "no /usr/bin/chromium (scripts/install-deps.sh installs "
                    "it): the report was written but not opened in a browser";
  }
  EXPECT_EQ(console, "") << "the browser logged errors";
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      dom, m,
      std::regex("data-charts=\"(\\d+)\" data-charts-drawn=\"(\\d+)\"")))
      << dom.substr(0, 2000);
  // Throughput + time, 2 slowest-round charts, >= 2 latency charts (write,
  // read), one timeline per run.
  EXPECT_GE(std::stoi(m[1]), 2 + 2 + 2 + 8);
  EXPECT_EQ(m[1], m[2]) << "charts present but not drawn";
  for (const char* kind : {"bar", "line", "timeline"}) {
    EXPECT_NE(dom.find(std::string("data-chart=\"") + kind + "\""),
              std::string::npos)
        << kind;
  }
  EXPECT_NE(dom.find("NUM_LAYERS=2,NUM_DEVICES=2"), std::string::npos);
  // Chart labels: each point's values in sweep order (NUM_LAYERS, then
  // NUM_DEVICES), points in sweep order.
  size_t p01 = dom.find(">1, 2<"), p10 = dom.find(">2, 1<");
  ASSERT_NE(p01, std::string::npos);
  ASSERT_NE(p10, std::string::npos);
  EXPECT_LT(p01, p10);

  // Compare the sweep with itself: every point, nothing changed.
  auto cmp = RunCkptbench({"compare", t.Sub("res"), t.Sub("res")}, Env(t));
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_GT(CountLines(cmp.out), 8) << cmp.out;
  EXPECT_NE(cmp.out.find("within spread"), std::string::npos) << cmp.out;
  EXPECT_EQ(cmp.out.find("* changed"), std::string::npos) << cmp.out;
}

TEST(Sweep, InterruptedSweepResumesWithoutRunningAFinishedPointTwice) {
  TempDir t;
  const std::string res = t.Sub("res");
  std::map<std::string, std::string> before;
  {
    Process p({CkptbenchBinary(), "sweep", kSmoke, "--results-dir", res},
              Env(t));
    ASSERT_TRUE(p.WaitForOutput(
        "001-NUM_LAYERS=1,NUM_DEVICES=2,repeat=1/result.json", 120))
        << p.Err();
    p.Signal(SIGINT);
    ASSERT_EQ(p.Wait(120), 3) << p.Err();  // interrupted: --resume finishes it
    EXPECT_NE(p.Err().find("--resume"), std::string::npos) << p.Err();
  }
  int finished = 0;
  for (const auto& d : RunDirs(res)) {
    std::string f = res + "/" + d + "/result.json";
    if (!fs::exists(f)) continue;
    ++finished;
    before[d] = json::parse(ReadFile(f))["run_id"];
  }
  ASSERT_GE(finished, 2);
  ASSERT_LT(finished, 8);
  EXPECT_TRUE(before.count("000-NUM_LAYERS=1,NUM_DEVICES=1,repeat=1"));
  EXPECT_TRUE(before.count("001-NUM_LAYERS=1,NUM_DEVICES=2,repeat=1"));
  // The collated file already holds what finished.
  json partial = json::parse(ReadFile(res + "/collated_results.json"));
  int ok = 0;
  for (const auto& run : partial["runs"]) ok += run["status"] == "ok";
  EXPECT_EQ(ok, finished);

  // Without --resume the directory is refused, and nothing is touched.
  auto again = RunCkptbench({"sweep", kSmoke, "--results-dir", res}, Env(t));
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;

  auto resumed = RunCkptbench(
      {"sweep", kSmoke, "--results-dir", res, "--resume", "-q"}, Env(t));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("8 of 8 run(s) finished (" +
                             std::to_string(8 - finished) + " this time, " +
                             std::to_string(finished) + " before)"),
            std::string::npos)
      << resumed.out;
  std::set<std::string> run_ids;
  for (const auto& d : RunDirs(res)) {
    json j = json::parse(ReadFile(res + "/" + d + "/result.json"));
    EXPECT_EQ(j["status"], "ok") << d;
    run_ids.insert(j["run_id"].get<std::string>());
    if (before.count(d)) {
      EXPECT_EQ(j["run_id"], before[d]) << d << " ran twice";
    }
  }
  EXPECT_EQ(run_ids.size(), 8u);
  json c = json::parse(ReadFile(res + "/collated_results.json"));
  EXPECT_EQ(c["runs"].size(), 8u);
  for (const auto& run : c["runs"]) EXPECT_EQ(run["status"], "ok");

  // Resuming with other values is refused: it would be another sweep.
  auto other = RunCkptbench(
      {"sweep", kSmoke, "NUM_LAYERS=3", "--results-dir", res, "--resume"},
      Env(t));
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("a different sweep"), std::string::npos)
      << other.err;
}

// --resume where no sweep started yet starts it (a Kubernetes sweep's
// first start and its restarts run one command); a sweep.json that is not
// a sweep manifest is still refused.
TEST(Sweep, ResumeWhereNoSweepStartedYetStartsIt) {
  TempDir t;
  const std::string res = t.Sub("fresh/sweep");
  auto first = RunCkptbench({"sweep", kSmoke, "NUM_DEVICES=1", "NUM_LAYERS=1",
                             "--results-dir", res, "--resume", "-q"},
                            Env(t));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("holds no sweep yet; starting it"),
            std::string::npos)
      << first.err;
  EXPECT_NE(first.out.find("2 of 2 run(s) finished (2 this time, 0 before)"),
            std::string::npos)
      << first.out;
  auto again = RunCkptbench({"sweep", kSmoke, "NUM_DEVICES=1", "NUM_LAYERS=1",
                             "--results-dir", res, "--resume", "-q"},
                            Env(t));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("2 of 2 run(s) finished (0 this time, 2 before)"),
            std::string::npos)
      << again.out;
  const std::string other = t.Sub("other");
  fs::create_directories(other);
  std::ofstream(other + "/sweep.json") << "{\"not\": \"a manifest\"}";
  auto refused = RunCkptbench(
      {"sweep", kSmoke, "--results-dir", other, "--resume"}, Env(t));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("not a sweep manifest"), std::string::npos)
      << refused.err;
}

// `report` on a plain run directory: the same report for one run.
TEST(Sweep, ReportOfASingleRunDirectory) {
  TempDir t;
  auto env = Env(t);
  env["CKPT_CACHE_MODE"] = "fadvise";
  env["NUM_LAYERS"] = "1";
  env["NUM_DEVICES"] = "2";
  env["NUM_SAVE_CALLS"] = "2";
  env["NUM_LOAD_CALLS"] = "2";
  auto r = RunCkptbench({"run", "--results-dir", t.Sub("res"), "-q"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rep = RunCkptbench({"report", t.Sub("res")}, env);
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  std::string html = ReadFile(t.Sub("res/report.html"));
  for (const char* want : {"data-chart=\"bar\"", "data-chart=\"line\"",
                           "data-chart=\"timeline\"", "save 2 n0"}) {
    EXPECT_NE(html.find(want), std::string::npos) << want;
  }
  auto none = RunCkptbench({"report", t.Sub("nothing")}, env);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("found neither"), std::string::npos) << none.err;

  // Results are read into the types that wrote them: a field of the wrong
  // type is refused, naming the file and the field, by report and compare.
  auto j = nlohmann::json::parse(ReadFile(t.Sub("res/result.json")));
  j["rounds"][1]["seconds"] = "slow";
  std::filesystem::create_directories(t.Sub("bad"));
  std::ofstream(t.Sub("bad/result.json")) << j.dump();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", t.Sub("bad")},
        std::vector<std::string>{"compare", t.Sub("res"), t.Sub("bad")}}) {
    auto bad = RunCkptbench(args, env);
    EXPECT_EQ(bad.exit_code, 2) << args[0];
    EXPECT_NE(bad.err.find(t.Sub("bad/result.json") +
                           ": rounds[1].seconds: expected a number, found "
                           "the string \"slow\""),
              std::string::npos)
        << bad.err;
  }
}

// A run that failed is kept, the sweep goes on, and --resume runs it again.
TEST(Sweep, FailedRunsAreKeptAndRunAgainOnResume) {
  TempDir t;
  // The storage path lies under a regular file: every save fails.
  std::ofstream(t.Sub("blocker")) << "x";
  auto env = Env(t);
  env["CKPT_DIR_PATH"] = t.Sub("blocker/ckpt");
  const std::vector<std::string> args = {
      "sweep",    kSmoke,          "NUM_LAYERS=1", "NUM_DEVICES=1,2",
      "repeat=1", "--results-dir", t.Sub("res"),   "-q"};
  auto r = RunCkptbench(args, env);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("2 of 2 run(s) finished (2 this time, 0 before), 2 "
                       "failed"),
            std::string::npos)
      << r.out;
  const std::string first = t.Sub("res/000-NUM_DEVICES=1/result.json");
  EXPECT_EQ(json::parse(ReadFile(first))["status"], "failed");
  fs::remove(t.Sub("blocker"));
  fs::create_directories(t.Sub("blocker"));
  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  auto again = RunCkptbench(resume, env);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(ReadFile(first))["status"], "ok");
  EXPECT_EQ(json::parse(ReadFile(
                t.Sub("res/000-NUM_DEVICES=1/result.failed.json")))["status"],
            "failed");
}

// Every error names the file, the line and the key, before any run.
TEST(Sweep, BadExperimentFailsBeforeAnyRunNamingFileLineAndKey) {
  TempDir t;
  const std::string exp = t.Sub("exp.yaml");
  struct Case {
    std::string yaml;
    std::vector<std::string> want;
  } cases[] = {
      {"defaults:\n  - storage: scratch\nrepeat: 2\nsweep:\n  NUM_LAYRES: [1, "
       "2]\n",
       {exp + ":5:", "unknown key 'NUM_LAYRES'", "did you mean 'NUM_LAYERS'"}},
      {"model:\n  num_layres: 2\n",
       {exp + ":2:", "unknown key 'model.num_layres'",
        "did you mean 'model.num_layers'"}},
      {"sweep:\n  NUM_LAYERS: [1, two]\n",
       {exp + ":2 (sweep)", "NUM_LAYERS", "'two'", "integer"}},
      {"defaults:\n  - storage: nowhere\n",
       {exp + ":2:", "storage = 'nowhere'", "no file"}},
      {"sweep:\n  NUM_LAYERS: [1, 1]\n", {exp + ":2:", "given twice"}},
      {"repeat: 0\n", {exp + ":1:", "repeat = '0'"}},
      {"sweep:\n  CKPT_LISTEN: [127.0.0.1:1, 127.0.0.1:2]\n",
       {"sweep run 001-CKPT_LISTEN=127.0.0.1_2",
        "control.* / tls.* / auth.* differ between points"}},
  };
  for (const auto& c : cases) {
    {
      std::ofstream out(exp);
      out << c.yaml;
    }
    // Group files resolve beside the experiment: give it conf/'s groups.
    fs::remove_all(t.Sub("storage"));
    fs::create_directories(t.Sub("storage"));
    fs::copy_file(SourceDir() + "/conf/storage/scratch.yaml",
                  t.Sub("storage/scratch.yaml"));
    auto r =
        RunCkptbench({"sweep", exp, "--results-dir", t.Sub("res")}, Env(t));
    EXPECT_EQ(r.exit_code, 2) << c.yaml;
    for (const auto& w : c.want) {
      EXPECT_NE(r.err.find(w), std::string::npos)
          << "want '" << w << "' in: " << r.err;
    }
    EXPECT_FALSE(fs::exists(t.Sub("res"))) << "a results dir was made";
    EXPECT_FALSE(fs::exists(t.Sub("ckpt"))) << "storage was touched";
  }
  // The same on the command line.
  auto r = RunCkptbench({"sweep", kSmoke, "NUM_DEVICE=1,2"}, Env(t));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("command line: unknown key 'NUM_DEVICE'"),
            std::string::npos)
      << r.err;
}

TEST(Sweep, CommandLineSweepsReplaceTheFilesAndRepeatOverrides) {
  TempDir t;
  auto r = RunCkptbench({"sweep", kSmoke, "NUM_LAYERS=3", "model.num_layers=3",
                         "CKPT_THREAD_COUNT=1,2,4", "repeat=1", "--dry-run"},
                        Env(t));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 run(s), all valid"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("000-NUM_DEVICES=1,CKPT_THREAD_COUNT=1\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("005-NUM_DEVICES=2,CKPT_THREAD_COUNT=4\n"),
            std::string::npos)
      << r.out;
  // A group swept from the command line: one group file per value.
  auto g = RunCkptbench({"sweep", kSmoke, "rounds=quick,standard", "repeat=1",
                         "NUM_LAYERS=1", "NUM_DEVICES=1", "--dry-run"},
                        Env(t));
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_NE(g.out.find("000-rounds=quick\n  001-rounds=standard\n"),
            std::string::npos)
      << g.out;
  EXPECT_FALSE(fs::exists(t.Sub("ckpt")));
}

// --dry-run says what a prepare: datagen will write, once per dataset,
// and that one does not fit on its local file system (it said "all
// valid" for a dataset 40 times the disk, and nothing else), writing
// nothing.
TEST(Sweep, DryRunSaysWhatAPrepareWritesAndWhetherItFits) {
  TempDir t;
  const std::string conf = SourceDir() + "/conf/dataloading.yaml";
  auto ok = RunCkptbench({"sweep", conf, "--smoke", "--dry-run",
                          "CKPT_DIR_PATH=" + t.Sub("store")},
                         {{"HOME", t.path()}});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("prepare: datagen writes "), std::string::npos)
      << ok.out;
  EXPECT_NE(ok.out.find("(600 samples), to " + t.Sub("store") + "/datasets/"),
            std::string::npos)
      << ok.out;
  auto big = RunCkptbench(
      {"sweep", conf, "--smoke", "--dry-run", "CKPT_DIR_PATH=" + t.Sub("store"),
       "dataset.samples=1000000", "dataset.sample_bytes=4GiB",
       "dataset.sample_spread=0"},
      {{"HOME", t.path()}});
  EXPECT_EQ(big.exit_code, 0) << big.err;
  EXPECT_NE(big.out.find("all valid; a dataset does not fit where it goes"),
            std::string::npos)
      << big.out;
  EXPECT_NE(big.out.find(" PiB (1000000 samples), to " + t.Sub("store") +
                         "/datasets/"),
            std::string::npos)
      << big.out;
  EXPECT_NE(big.out.find(": DOES NOT FIT, its file system has "),
            std::string::npos)
      << big.out;
  EXPECT_FALSE(fs::exists(t.Sub("store")));
}

// A sweep killed in its prepare's datagen (its pods lost, the JobSet
// restarted) is resumed: the datagen finishes what its killed attempt
// began (that attempt's run id was recorded before it ran) instead of
// being refused by the claim it left, and the sweep finishes. (It was
// refused: "claimed by run R ... which has not written its manifest".)
TEST(Sweep, AResumedSweepFinishesTheDatagenItsKilledAttemptBegan) {
  TempDir t;
  const std::vector<std::string> args = {"sweep",
                                         SourceDir() + "/conf/dataloading.yaml",
                                         "--smoke",
                                         "--results-dir",
                                         t.Sub("res"),
                                         "CKPT_DIR_PATH=" + t.Sub("store"),
                                         "dataset.format=files",
                                         "dataset.samples=20000",
                                         "dataset.sample_bytes=2KiB",
                                         "dataset.sample_spread=0",
                                         "dataset.write_threads=1"};
  const std::map<std::string, std::string> env = {{"HOME", t.path()}};
  {
    std::vector<std::string> argv = args;
    argv.insert(argv.begin(), CkptbenchBinary());
    Process p(argv, env);
    for (int i = 0; i < 6000 && CountFiles(t.Sub("store/datasets")) < 500;
         ++i) {
      usleep(5000);
    }
    p.Signal(SIGKILL);
    p.Wait(10);
  }
  const size_t written = CountFiles(t.Sub("store/datasets"));
  ASSERT_GE(written, 500u);
  ASSERT_LT(written, 20000u) << "the datagen finished before it was killed";
  std::string dataset, attempts;
  for (const auto& e : fs::directory_iterator(t.Sub("store/datasets"))) {
    dataset = e.path().string();
  }
  for (const auto& e : fs::directory_iterator(t.Sub("res/prepare"))) {
    attempts = (e.path() / "attempts.txt").string();
  }
  ASSERT_TRUE(fs::exists(dataset + "/.ckptbench-datagen")) << dataset;
  ASSERT_FALSE(fs::exists(dataset + "/ckptbench-dataset.json"));
  ASSERT_TRUE(fs::exists(attempts));
  const std::string first = ReadFile(attempts);

  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  auto again = RunCkptbench(resume, env);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("4 of 4 run(s) finished"), std::string::npos)
      << again.out;
  EXPECT_NE(again.err.find("finishing the datagen run " +
                           first.substr(0, first.find('\n')) + " began"),
            std::string::npos)
      << again.err;
  EXPECT_TRUE(fs::exists(dataset + "/ckptbench-dataset.json"));
  EXPECT_FALSE(fs::exists(dataset + "/.ckptbench-datagen"));
  // Every sample once: the dataset is whole, nothing of the attempt's
  // beside it (20000 samples + the manifest).
  EXPECT_EQ(CountFiles(dataset), 20001u);
  // Both attempts recorded, the killed one first.
  const std::string both = ReadFile(attempts);
  EXPECT_EQ(both.rfind(first, 0), 0u) << both;
  EXPECT_EQ(std::count(both.begin(), both.end(), '\n'), 2) << both;

  // Another run's unfinished datagen (a `ckptbench datagen` killed) at the
  // path is not this sweep's to finish: still refused, naming it.
  const std::string other =
      t.Sub("store2/datasets") + "/" + fs::path(dataset).filename().string();
  {
    Process p({CkptbenchBinary(), "datagen", "-q"},
              {{"HOME", t.path()},
               {"CKPT_DATASET_PATH", other},
               {"CKPT_DATASET_FORMAT", "files"},
               {"CKPT_DATASET_SAMPLES", "20000"},
               {"CKPT_SAMPLE_BYTES", "2KiB"},
               {"CKPT_SAMPLE_SPREAD", "0"},
               {"CKPT_DATAGEN_THREADS", "1"}});
    for (int i = 0; i < 6000 && CountFiles(other) < 500; ++i) usleep(5000);
    p.Signal(SIGKILL);
    p.Wait(10);
  }
  ASSERT_TRUE(fs::exists(other + "/.ckptbench-datagen")) << other;
  std::vector<std::string> foreign = resume;
  for (auto& a : foreign) {
    if (a == t.Sub("res")) a = t.Sub("res2");
    if (a == "CKPT_DIR_PATH=" + t.Sub("store")) {
      a = "CKPT_DIR_PATH=" + t.Sub("store2");
    }
  }
  auto refused = RunCkptbench(foreign, env);
  EXPECT_NE(refused.exit_code, 0) << refused.out;
  EXPECT_NE(refused.err.find("is claimed by run"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(other + "/ckptbench-dataset.json"));
}

// Every experiment shipped in conf/ loads, composes and validates at every
// point (no I/O: --dry-run).
TEST(Sweep, EveryShippedExperimentIsValid) {
  TempDir t;
  int experiments = 0;
  for (const auto& e : fs::directory_iterator(SourceDir() + "/conf")) {
    if (e.path().extension() != ".yaml") continue;
    if (ReadFile(e.path()).find("\nsweep:") == std::string::npos) continue;
    ++experiments;
    auto r = RunCkptbench({"sweep", e.path().string(), "--dry-run"},
                          {{"HOME", t.path()}});
    EXPECT_EQ(r.exit_code, 0) << e.path() << ": " << r.err;
    EXPECT_NE(r.out.find("all valid"), std::string::npos) << r.out;
  }
  EXPECT_GE(experiments, 7);
}

}  // namespace
}  // namespace ckpt
