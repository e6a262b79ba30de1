// The checkpoint's sections of result.json are registered ResultSections:
// "reshard", a resharded restore's plan, placed before the rounds,
// "goodput", derived from the rounds when the file is written, at the end,
// and a save round's "time_to_visible", after the round's figures. Each is
// written where result.json always had it (right after the clock, before
// the other workloads' sections; after the summary; after the round's
// flags, before its clock), read back by
// its codec with the same checks and messages, its member the checkpoint's
// alone, and carried through where it was by a registry without the
// checkpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/json_codec.h"
#include "coordinator/workload_registry.h"
#include "tests/testing/json_members.h"
#include "tests/testing/visibility_fixture.h"

namespace ckpt {
namespace {

using ordered = nlohmann::ordered_json;

RunResult Resharded() {
  RunResult r;
  ReshardResult rs;
  rs.mode = ReshardReads::kSegments;
  rs.from_world = 2;
  rs.to_world = 3;
  rs.from_layout = "w2";
  rs.to_layout = "w3";
  rs.bytes_needed = 3000;
  rs.bytes_read = 4096;
  rs.read_amplification = 4096.0 / 3000.0;
  rs.ranks.push_back({2, 1, 1000, 2048, 2, 3, {0, 1}});
  SetReshard(&r, rs);
  RoundResult& load = r.rounds.emplace_back();
  load.phase = Phase::kLoad;
  load.resharded = true;
  return r;
}

// Right after the clock, before another workload's section placed before
// the rounds (the checkpoint is registered first), then the rounds; read
// back whole, and the same file written again.
TEST(CheckpointSections, AReshardIsWrittenAfterTheClockAndReadBack) {
  RunResult r = Resharded();
  r.sections[kDatasetSection] = std::make_shared<DatasetResult>();
  const std::string text = ResultToJson(r);
  const std::vector<std::string> members = JsonMembers(text);
  const auto at = [&members](const std::string& m) {
    return std::find(members.begin(), members.end(), m) - members.begin();
  };
  EXPECT_EQ(at("clock") + 1, at("reshard")) << text;
  EXPECT_EQ(at("reshard") + 1, at("dataset"));
  EXPECT_EQ(at("dataset") + 1, at("rounds"));
  auto back = ResultFromJson(text, "result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  const ReshardResult* rs = ReshardOf(*back);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->mode, ReshardReads::kSegments);
  EXPECT_EQ(rs->to_layout, "w3");
  ASSERT_EQ(rs->ranks.size(), 1u);
  EXPECT_EQ(rs->ranks[0].from_ranks, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(back->foreign.empty());
  EXPECT_EQ(ResultToJson(*back), text);
  // A run that loaded its own layout has none.
  EXPECT_FALSE(ordered::parse(ResultToJson(RunResult{})).contains("reshard"));
}

// A wrong field is named by its path from the run's object, as when
// result.json's own reader read it.
TEST(CheckpointSections, AWrongReshardFieldIsNamedByItsPath) {
  ordered j = ordered::parse(ResultToJson(Resharded()));
  j["reshard"]["ranks"][0]["from_ranks"] = "0,1";
  auto r = ResultFromJson(j.dump(), "run/result.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()),
            "run/result.json: reshard.ranks[0].from_ranks: expected an "
            "array, found the string \"0,1\"");
  j = ordered::parse(ResultToJson(Resharded()));
  j["reshard"] = ordered::array();
  r = ResultFromJson(j.dump(), "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()),
            "r.json: reshard: expected an object, found array");
}

// "reshard" is the checkpoint's: another workload cannot register a
// section under it; a registry without the checkpoint carries it through
// unread, and writes it back where it was.
TEST(CheckpointSections, TheReshardMemberIsTheCheckpointsAlone) {
  RunWorkloadEntry other("other", [] { return nullptr; });
  other.results.push_back(*WorkloadRegistry::BuiltIn().SectionCodec("reshard"));
  auto refused = WorkloadRegistry::BuiltIn().With(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kAlreadyExists);

  const std::string text = ResultToJson(Resharded());
  const WorkloadRegistry without;
  auto back = ResultFromJson(text, "result.json", without);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ReshardOf(*back), nullptr);
  ASSERT_EQ(back->foreign.sections.size(), 1u);
  EXPECT_EQ(back->foreign.sections[0].first, "reshard");
  EXPECT_EQ(ResultToJson(*back, without), text);
}

// Goodput: after the summary, derived from the timed saves and loads at
// the run.mttf and run.interval the section holds; left out while it
// cannot be computed (no timed save); read back as what it is computed at,
// so the file is the same bytes again.
TEST(CheckpointSections, GoodputIsDerivedFromTheRoundsAfterTheSummary) {
  RunResult r;
  SetGoodputAt(&r, 86400, 600);
  EXPECT_FALSE(ordered::parse(ResultToJson(r)).contains("goodput"));
  for (const double cost : {50.0, 70.0, 60.0}) {
    RoundResult& save = r.rounds.emplace_back();
    save.seconds = cost;
    save.staging.checkpoint_cost_seconds = cost;
  }
  RoundResult& load = r.rounds.emplace_back();
  load.phase = Phase::kLoad;
  load.seconds = 120;
  const std::string text = ResultToJson(r);
  const std::vector<std::string> members = JsonMembers(text);
  ASSERT_GE(members.size(), 3u);
  EXPECT_EQ(members[members.size() - 2], "summary") << text;
  EXPECT_EQ(members.back(), "goodput");
  const ordered g = ordered::parse(text)["goodput"];
  EXPECT_EQ(g["mttf_seconds"].get<double>(), 86400);
  EXPECT_EQ(g["interval_seconds"].get<double>(), 600);
  EXPECT_EQ(g["checkpoint_cost_seconds"].get<double>(), 60);
  EXPECT_EQ(g["restart_seconds"].get<double>(), 120);
  EXPECT_NEAR(g["at_interval"]["goodput"].get<double>(),
              GoodputOf(r)->at_interval.goodput, 1e-12);
  auto back = ResultFromJson(text, "result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_NE(GoodputAtOf(*back), nullptr);
  EXPECT_EQ(GoodputAtOf(*back)->mttf_seconds, 86400);
  EXPECT_EQ(GoodputAtOf(*back)->interval_seconds, 600);
  EXPECT_EQ(ResultToJson(*back), text);
  const WorkloadRegistry without;
  // The section writes itself, whichever registry writes the file.
  EXPECT_EQ(ordered::parse(ResultToJson(r, without))["goodput"], g);
  back = ResultFromJson(text, "result.json", without);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(GoodputAtOf(*back), nullptr);
  EXPECT_EQ(ResultToJson(*back, without), text);  // carried through
  ordered bad = ordered::parse(text);
  bad["goodput"]["mttf_seconds"] = "a day";
  auto refused = ResultFromJson(bad.dump(), "r.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(std::string(refused.status().message()),
            "r.json: goodput.mttf_seconds: expected a number, found the "
            "string \"a day\"");
}

// The checkpoint's sections are read where they are in the file, so a
// file's first wrong member is the one named: the run's plan before a
// reshard after it, a round before the goodput at the end.
TEST(CheckpointSections, AFilesFirstWrongMemberIsNamed) {
  ordered j = ordered::parse(ResultToJson(Resharded()));
  j["plan"]["world_size"] = "two";
  j["reshard"]["to_world"] = "three";
  auto r = ResultFromJson(j.dump(), "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()).rfind("r.json: plan.", 0), 0u)
      << r.status();
  RunResult run = Resharded();
  SetGoodputAt(&run, 86400, 0);
  run.rounds.emplace_back().staging.checkpoint_cost_seconds = 1;
  j = ordered::parse(ResultToJson(run));
  ASSERT_TRUE(j.contains("goodput"));
  j["goodput"]["mttf_seconds"] = "a day";
  j["rounds"][0]["seconds"] = "long";
  r = ResultFromJson(j.dump(), "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()).rfind("r.json: rounds[0].", 0),
            0u)
      << r.status();
}

// A workload has each of its sections under a member of its own.
TEST(CheckpointSections, AWorkloadRegistersAMemberOnce) {
  const ResultSectionCodec* reshard =
      WorkloadRegistry::BuiltIn().SectionCodec(kReshardSection);
  ASSERT_NE(reshard, nullptr);
  RunWorkloadEntry twice("twice", [] { return nullptr; });
  twice.results = {*reshard, *reshard};
  twice.results[0].member = twice.results[1].member = "plan_again";
  auto refused = WorkloadRegistry::BuiltIn().With(twice);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kAlreadyExists);
  twice.results[1].member = "plan_once_more";
  EXPECT_TRUE(WorkloadRegistry::BuiltIn().With(twice).ok());
}

// A save's time to visible: after the round's flags (a save has no load
// parts), before its clock, as result.json always had it; read back whole,
// the same file again; carried through where it was by a registry without
// the checkpoint; a wrong field named by its path; the round's members read
// in the file's order, so the first wrong one is named.
TEST(CheckpointSections,
     ATimeToVisibleIsWrittenAfterTheRoundsFiguresAndReadBack) {
  RunResult r;
  RoundResult& save = r.rounds.emplace_back();
  save.index = 1;
  save.clocks = {{1, "", 0.25, 0.5}};
  Visibility seen = SeenOnTheThirdPoll();
  seen.lacked = "shard";
  SetVisibility(&save, seen);
  r.rounds.emplace_back().index = 2;  // not measured
  const std::string text = ResultToJson(r);
  const ordered j = ordered::parse(text);
  const std::vector<std::string> members = JsonMembers(j["rounds"][0].dump());
  const auto at = [&members](const std::string& m) {
    return std::find(members.begin(), members.end(), m) - members.begin();
  };
  EXPECT_EQ(at("flags") + 1, at("time_to_visible")) << text;
  EXPECT_EQ(at("time_to_visible") + 1, at("clock"));
  EXPECT_FALSE(j["rounds"][1].contains("time_to_visible"));
  EXPECT_EQ(j["rounds"][0]["time_to_visible"]["lacked"], "shard");

  auto back = ResultFromJson(text, "result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  const Visibility* v = VisibilityOf(back->rounds[0]);
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(v->visible);
  EXPECT_EQ(v->node, 1);
  EXPECT_EQ(v->host, "h1");
  EXPECT_EQ(v->seconds, 0.5);
  EXPECT_EQ(v->poll_seconds, 0.25);
  EXPECT_EQ(v->polls, 3u);
  EXPECT_EQ(v->last_poll_seconds, 0.0625);
  EXPECT_EQ(v->lacked, "shard");
  EXPECT_EQ(VisibilityOf(back->rounds[1]), nullptr);
  EXPECT_EQ(ResultToJson(*back), text);

  const WorkloadRegistry without;
  back = ResultFromJson(text, "result.json", without);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(VisibilityOf(back->rounds[0]), nullptr);
  ASSERT_EQ(back->rounds[0].foreign.sections.size(), 1u);
  EXPECT_EQ(back->rounds[0].foreign.sections[0].first, "time_to_visible");
  EXPECT_EQ(ResultToJson(*back, without), text);

  ordered bad = j;
  bad["rounds"][0]["time_to_visible"]["polls"] = "three";
  auto refused = ResultFromJson(bad.dump(), "r.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(std::string(refused.status().message())
                .rfind("r.json: rounds[0].time_to_visible.polls: expected ", 0),
            0u)
      << refused.status();
  bad["rounds"][0]["flags"] = "many";
  refused = ResultFromJson(bad.dump(), "r.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(std::string(refused.status().message())
                .rfind("r.json: rounds[0].flags", 0),
            0u)
      << refused.status();
  bad = j;
  bad["rounds"][0]["time_to_visible"]["polls"] = "three";
  bad["rounds"][0]["clock"] = "skewed";
  refused = ResultFromJson(bad.dump(), "r.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(std::string(refused.status().message())
                .rfind("r.json: rounds[0].time_to_visible.", 0),
            0u)
      << refused.status();
}

// A round's section may be placed after the round's figures; a run's not.
TEST(CheckpointSections, ARoundsFiguresPlaceIsARoundsAlone) {
  const ResultSectionCodec* visible =
      WorkloadRegistry::BuiltIn().RoundSectionCodec(kVisibleSection);
  ASSERT_NE(visible, nullptr);
  EXPECT_EQ(visible->place, ResultPlace::kRoundFigures);
  RunWorkloadEntry run_level("run_level", [] { return nullptr; });
  run_level.results = {*visible};
  run_level.results[0].member = "seen";
  auto refused = WorkloadRegistry::BuiltIn().With(run_level);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  RunWorkloadEntry round_level("round_level", [] { return nullptr; });
  round_level.round_result = *visible;
  round_level.round_result.member = "seen";
  EXPECT_TRUE(WorkloadRegistry::BuiltIn().With(round_level).ok());
  round_level.round_result.member = kVisibleSection;
  refused = WorkloadRegistry::BuiltIn().With(round_level);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kAlreadyExists);
}

// A section's bytes that are not UTF-8 (a host's name, a layout, a
// dataset's path) are escaped as \xHH text, as the rest of result.json's
// are, not fatal to writing it.
TEST(CheckpointSections, InvalidUtf8InASectionIsEscapedNotFatal) {
  RunResult r = Resharded();
  ReshardResult rs = *ReshardOf(r);
  rs.from_layout = "w\xFF";
  SetReshard(&r, rs);
  auto dataset = std::make_shared<DatasetResult>();
  dataset->uri = "/tmp/\xFF";
  r.sections[kDatasetSection] = dataset;
  RoundResult& save = r.rounds.emplace_back();
  Visibility seen;
  seen.host = "caf\xE9";
  SetVisibility(&save, seen);
  std::string text;
  ASSERT_NO_THROW(text = ResultToJson(r));
  const ordered j = ordered::parse(text);
  EXPECT_EQ(j["reshard"]["from_layout"], "w\\xFF");
  EXPECT_EQ(j["dataset"]["uri"], "/tmp/\\xFF");
  EXPECT_EQ(j["rounds"][1]["time_to_visible"]["host"], "caf\\xE9");
}

}  // namespace
}  // namespace ckpt
