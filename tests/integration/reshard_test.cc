// Resharded restores through the ckptbench binary on local disk: a
// checkpoint saved by N ranks loaded by M (4 -> 2, 2 -> 4, 8 -> 6), every
// byte read checked against the writer's. (S3: tests/integration/s3_test;
// the amplification of hand-made layouts: tests/coordinator/reshard_test.)
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_format.h"
#include "tests/testing/chromium.h"
#include "tests/testing/result_files.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;

std::map<std::string, std::string> Env(const TempDir& t, int ranks, bool save) {
  return {{"CKPT_DIR_PATH", t.Sub("ckpt")},
          {"CKPT_CACHE_MODE", "fadvise"},
          {"NUM_DEVICES", std::to_string(ranks)},
          {"NUM_LAYERS", "1"},
          {"CKPT_OPTIMIZER", "none"},
          {"CKPT_MODE", save ? "save-only" : "load-only"},
          {"NUM_SAVE_CALLS", save ? "1" : "0"},
          {"NUM_LOAD_CALLS", save ? "0" : "2"}};
}

// Saves with `from` ranks, loads twice with `to`; the load's result.json
// (and its stderr in *err).
json Reshard(const TempDir& t, int from, int to,
             std::map<std::string, std::string> extra = {},
             std::string* err = nullptr) {
  auto save = RunProcess({CkptbenchBinary(), "run"}, Env(t, from, true));
  EXPECT_EQ(save.exit_code, 0) << save.err;
  auto env = Env(t, to, false);
  for (auto& [k, v] : extra) env[k] = v;
  auto load = RunProcess(
      {CkptbenchBinary(), "run", "--results-dir", t.Sub("res")}, env);
  EXPECT_EQ(load.exit_code, 0) << load.err;
  EXPECT_NE(load.out.find("resharded restore"), std::string::npos) << load.out;
  if (err != nullptr) *err = load.err;
  return json::parse(ReadFile(t.Sub("res/result.json")));
}

// The cells of a share's row in the report's resharding table: its planned
// files and reads, then the requests measured by `loader`, the rank that
// loaded it.
std::string ShareCells(const json& planned, const json& loader) {
  return absl::StrFormat(
      "<td>%d</td><td>%d</td><td>%d</td>", planned["files"].get<int>(),
      planned["reads"].get<int>(), loader["requests"].get<int>());
}

std::vector<int> FromRanks(const json& rank) {
  return rank["from_ranks"].get<std::vector<int>>();
}

// Exact ranges read only what each rank owns: amplification 1.0 by
// construction, bytes read = the checkpoint's bytes, every load verified.
void ExpectExact(const json& j, int from, int to) {
  const json& rs = j["reshard"];
  ASSERT_TRUE(rs.is_object()) << j.dump();
  EXPECT_EQ(rs["reads"], "ranges");
  EXPECT_EQ(rs["from_world"], from);
  EXPECT_EQ(rs["to_world"], to);
  const uint64_t ckpt = j["plan"]["checkpoint_bytes"].get<uint64_t>();
  EXPECT_EQ(rs["bytes_needed"].get<uint64_t>(), ckpt);
  EXPECT_EQ(rs["bytes_read"].get<uint64_t>(), ckpt);
  EXPECT_EQ(rs["read_amplification"].get<double>(), 1.0);
  EXPECT_GE(rs["planning_seconds"].get<double>(), 0.0);
  ASSERT_EQ(rs["ranks"].size(), static_cast<size_t>(to));
  int loads = 0;
  for (const auto& round : j["rounds"]) {
    if (round["phase"] != "load") continue;
    ++loads;
    EXPECT_TRUE(round["resharded"].get<bool>());
    EXPECT_TRUE(round["verified"].get<bool>()) << round.dump();
    EXPECT_EQ(round["bytes"].get<uint64_t>(), ckpt);
    EXPECT_EQ(round["read_amplification"].get<double>(), 1.0);
    EXPECT_EQ(round["rank_shift"], 0);
  }
  EXPECT_EQ(loads, 2);
}

// The transformer's tensors include 33278-element ones (vocab), which no
// world size of 4 or 6 divides: chunks are ceil(n / world) elements, so
// some new chunks start one element inside an old one (worked out below).

TEST(ReshardedRestore, FourRanksToTwo) {
  TempDir t;
  json j = Reshard(t, 4, 2);
  ExpectExact(j, 4, 2);
  // Old chunks of a 33278-element tensor: 8320 elements; new: 16639. New
  // rank 0 [0, 16639) lies in old ranks 0 and 1; new rank 1 [16639, 33278)
  // starts at old rank 1's last element, then old ranks 2 and 3.
  const json& ranks = j["reshard"]["ranks"];
  EXPECT_EQ(FromRanks(ranks[0]), (std::vector<int>{0, 1}));
  EXPECT_EQ(FromRanks(ranks[1]), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(ranks[0]["files"], 2);
  EXPECT_EQ(ranks[1]["files"], 3);

  // With load.rank_shift=1 rank 0 loads what rank 1 owns (saved ranks
  // 1..3) and rank 1 what rank 0 owns (saved 0..1), still all verified.
  auto env = Env(t, 2, false);
  env["CKPT_RANK_SHIFT"] = "1";
  auto shifted = RunProcess(
      {CkptbenchBinary(), "run", "--results-dir", t.Sub("shifted")}, env);
  ASSERT_EQ(shifted.exit_code, 0) << shifted.err;
  json s = json::parse(ReadFile(t.Sub("shifted/result.json")));
  for (const auto& round : s["rounds"]) {
    EXPECT_EQ(round["rank_shift"], 1);
    EXPECT_TRUE(round["verified"].get<bool>()) << round.dump();
    EXPECT_EQ(round["ranks"][0]["read_rank"], 1) << round["ranks"];
    EXPECT_EQ(round["ranks"][1]["read_rank"], 0) << round["ranks"];
    // From the per-file records: rank 0 read share 1's 3 files, rank 1
    // share 0's 2.
    int files[2] = {0, 0};
    for (const auto& row : round["files"]["rows"]) {
      ++files[row.at(FileColumn(round, "rank")).get<int>()];
    }
    EXPECT_EQ(files[0], 3);
    EXPECT_EQ(files[1], 2);
  }
  // The report puts beside each share's plan the requests of the rank
  // that loaded it.
  auto rep = RunProcess({CkptbenchBinary(), "report", t.Sub("shifted")}, {});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  std::string dom, console;
  ASSERT_TRUE(RenderInChromium(t, t.Sub("shifted/report.html"), &dom, &console))
      << "Chromium did not render the report";
  const json& last = s["rounds"].back();
  for (int share = 0; share < 2; ++share) {
    const json& planned = s["reshard"]["ranks"][share];
    const json& loader = last["ranks"][1 - share];  // (r + 1) mod 2 = share
    ASSERT_EQ(loader["read_rank"], share);
    const std::string cells = ShareCells(planned, loader);
    EXPECT_NE(dom.find(cells), std::string::npos) << cells;
  }
}

TEST(ReshardedRestore, TwoRanksToFour) {
  TempDir t;
  json j = Reshard(t, 2, 4);
  ExpectExact(j, 2, 4);
  // Old chunks: 16639 elements; new: 8320. New rank 1 [8320, 16640) ends
  // one element into old rank 1's chunk; new rank 3 [24960, 33278) lies in
  // old rank 1. Ranks 0 and 2 each read one old rank's file.
  const json& ranks = j["reshard"]["ranks"];
  EXPECT_EQ(FromRanks(ranks[0]), (std::vector<int>{0}));
  EXPECT_EQ(FromRanks(ranks[1]), (std::vector<int>{0, 1}));
  EXPECT_EQ(FromRanks(ranks[2]), (std::vector<int>{1}));
  EXPECT_EQ(FromRanks(ranks[3]), (std::vector<int>{1}));
}

TEST(ReshardedRestore, EightRanksToSixExactAndWholeSegments) {
  TempDir t;
  json j = Reshard(t, 8, 6);
  ExpectExact(j, 8, 6);
  // Old chunk 1/8, new 1/6: new rank 0 spans old ranks {0,1}, rank 5
  // {6,7}; rank 2 [2/6, 3/6) spans {2,3}, and one element more of the
  // 33278-element tensors: it ends at 3 x 5547 = 16641, old rank 4 starts
  // at 4 x 4160 = 16640.
  const json& ranks = j["reshard"]["ranks"];
  EXPECT_EQ(FromRanks(ranks[0]), (std::vector<int>{0, 1}));
  EXPECT_EQ(FromRanks(ranks[2]), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(FromRanks(ranks[5]), (std::vector<int>{6, 7}));

  // Whole segments (as DCP reads stored items): each new rank reads its 2
  // or 3 old ranks' segments whole. Were every chunk boundary exact this
  // would be 1.5x (2/8 read for 1/6 needed; tests/coordinator/
  // reshard_test); the one-element overlaps pull whole extra segments in,
  // so it is more. The nodes read what the plan said, and verified it.
  TempDir w;
  std::string err;
  json whole = Reshard(
      w, 8, 6,
      {{"CKPT_RESHARD_READS", "segments"}, {"CKPT_PROGRESS_INTERVAL", "0.01"}},
      &err);
  const json& rs = whole["reshard"];
  // Progress counts toward the bytes the plan reads, not the checkpoint's.
  const std::string total = absl::StrFormat(
      " / %.2f MiB ",
      static_cast<double>(rs["bytes_read"].get<uint64_t>()) / (1 << 20));
  EXPECT_NE(err.find("progress: load 1 "), std::string::npos) << err;
  EXPECT_NE(err.find(total), std::string::npos) << total << "\n" << err;
  EXPECT_EQ(rs["reads"], "segments");
  const double amp = rs["read_amplification"].get<double>();
  EXPECT_GT(amp, 1.5);
  EXPECT_EQ(
      rs["bytes_read"].get<uint64_t>(),
      static_cast<uint64_t>(
          amp * static_cast<double>(rs["bytes_needed"].get<uint64_t>()) + 0.5));
  for (const auto& round : whole["rounds"]) {
    EXPECT_TRUE(round["verified"].get<bool>()) << round.dump();
    EXPECT_EQ(round["bytes_read"], rs["bytes_read"]);
    EXPECT_EQ(round["bytes"], rs["bytes_needed"]);  // the restore's bytes
    EXPECT_DOUBLE_EQ(round["read_amplification"].get<double>(), amp);
  }
  // The report states the amplification a reader needs.
  auto rep = RunProcess({CkptbenchBinary(), "report", w.Sub("res")}, {});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  std::string dom, console;
  ASSERT_TRUE(RenderInChromium(w, w.Sub("res/report.html"), &dom, &console))
      << "Chromium did not render the report";
  EXPECT_EQ(console, "");
  EXPECT_NE(dom.find("Resharded restores"), std::string::npos);
  // Every chart present was laid out by the browser.
  const auto [charts, drawn] = ChartsDrawn(dom);
  EXPECT_GT(charts, 0);
  EXPECT_EQ(charts, drawn) << "charts present but not drawn";
  const std::string said = absl::StrFormat(
      "Saved by 8 ranks, loaded by 6 "
      "(load.reshard_reads=segments). Read amplification "
      "%.3fx",
      amp);
  EXPECT_NE(dom.find(said), std::string::npos) << said << "\n" << dom;
  EXPECT_NE(dom.find("Resharded restore res: bytes per loading rank"),
            std::string::npos);
  // Beside each rank's planned reads, the requests the last load measured
  // for it (on local disk, buffered, its read calls: at least one per read
  // range; no rank shift here, so rank i loaded share i).
  const json& last = whole["rounds"].back();
  ASSERT_EQ(last["ranks"].size(), rs["ranks"].size());
  for (size_t i = 0; i < rs["ranks"].size(); ++i) {
    const json& planned = rs["ranks"][i];
    const json& measured = last["ranks"][i];
    ASSERT_EQ(measured["rank"], planned["rank"]);
    EXPECT_GE(measured["requests"].get<uint64_t>(),
              planned["reads"].get<uint64_t>());
    const std::string cells = ShareCells(planned, measured);
    EXPECT_NE(dom.find(cells), std::string::npos) << cells;
  }
}

TEST(ReshardedRestore, ACorruptByteInARangeReadFailsTheLoadNamingIt) {
  TempDir t;
  auto save = RunProcess({CkptbenchBinary(), "run"}, Env(t, 4, true));
  ASSERT_EQ(save.exit_code, 0) << save.err;
  const std::string file = t.Sub("ckpt/checkpoints/step-1/__2_0.distcp");
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(4096);
    char c;
    f.read(&c, 1);
    c ^= 1;
    f.seekp(4096);
    f.write(&c, 1);
  }
  auto load =
      RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub("res")},
                 Env(t, 2, false));
  EXPECT_NE(load.exit_code, 0);
  EXPECT_NE(load.err.find("byte 4096 of " + file), std::string::npos)
      << load.err;
  EXPECT_NE(load.err.find("is not the one rank 2 wrote there"),
            std::string::npos)
      << load.err;
  // The failed round is still written, with the plan.
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  EXPECT_TRUE(j["reshard"].is_object());
}

}  // namespace
}  // namespace ckpt
