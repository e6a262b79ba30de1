// The dataset workloads' sections of result.json ("dataset", datagen's;
// "accelerator_search", dataload's) are registered ResultSections placed
// before the rounds, and a dataload round's "epoch" one at its round's
// head: written where result.json always had them, read back by their
// codecs with the same checks and messages, and a workload added to the
// registry places its own section after them.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/json_codec.h"
#include "coordinator/workload_registry.h"
#include "tests/testing/json_members.h"

namespace ckpt {
namespace {

using ordered = nlohmann::ordered_json;

RunResult Searched() {
  RunResult r;
  r.workload = "dataload";
  auto d = std::make_shared<DatasetResult>();
  d->uri = "s3://b/ds";
  d->spec.samples = 100;
  d->totals.objects = 10;
  d->listing.emplace().list_requests = 3;
  r.sections[kDatasetSection] = d;
  auto a = std::make_shared<AcceleratorSearchResult>();
  a->max_per_node = 4;
  a->trials.emplace_back().ranks_per_node = 1;
  a->ended_by = SearchEnd::kClient;
  r.sections[kAcceleratorSearchSection] = a;
  r.rounds.emplace_back().workload = "dataload";
  return r;
}

// Where result.json had them before they were sections: after the clock,
// the dataset then the search (registration order, not the members'
// alphabetical one), then the rounds; read back whole.
TEST(DatasetSections, AreWrittenBeforeTheRoundsAndReadBack) {
  const std::string text = ResultToJson(Searched());
  const std::vector<std::string> members = JsonMembers(text);
  const auto at = [&members](const std::string& m) {
    return std::find(members.begin(), members.end(), m) - members.begin();
  };
  EXPECT_EQ(at("clock") + 1, at("dataset")) << text;
  EXPECT_EQ(at("dataset") + 1, at("accelerator_search"));
  EXPECT_EQ(at("accelerator_search") + 1, at("rounds"));
  auto back = ResultFromJson(text, "result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_NE(DatasetResultOf(*back), nullptr);
  EXPECT_EQ(DatasetResultOf(*back)->uri, "s3://b/ds");
  EXPECT_EQ(DatasetResultOf(*back)->listing->list_requests, 3u);
  ASSERT_NE(AcceleratorSearchOf(*back), nullptr);
  EXPECT_EQ(AcceleratorSearchOf(*back)->ended_by, SearchEnd::kClient);
  EXPECT_TRUE(back->foreign.empty());
  EXPECT_EQ(ResultToJson(*back), text);  // the same file again
}

// A wrong field in a section is named by its path from the run's object,
// as when result.json's own reader read it.
TEST(DatasetSections, AWrongFieldIsNamedByItsPath) {
  ordered j = ordered::parse(ResultToJson(Searched()));
  j["dataset"]["objects"] = "many";
  auto r = ResultFromJson(j.dump(), "run/result.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "run/result.json: dataset.objects: expected a whole number from "
            "0, found the string \"many\"");
  j = ordered::parse(ResultToJson(Searched()));
  j["accelerator_search"]["trials"][0]["held"] = 1;
  r = ResultFromJson(j.dump(), "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "r.json: accelerator_search.trials[0].held: expected true or "
            "false, found the number 1");
  j = ordered::parse(ResultToJson(Searched()));
  j["dataset"] = "ds";
  r = ResultFromJson(j.dump(), "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "r.json: dataset: expected an object, found the string \"ds\"");
}

// A dataload round's epoch: right after the round's workload, before its
// phase, where result.json had it before it was a section; read back whole,
// a wrong field named by its path; a round without one has none.
TEST(DatasetSections, AnEpochIsWrittenAtItsRoundsHeadAndReadBack) {
  RunResult r = Searched();
  EpochResult& e = NewEpoch(&r.rounds[0]);
  e.samples = 64;
  e.warm = true;
  e.saves.emplace_back().step = 7;
  e.first_batch = {3, 0.0625, {1, 0.125, 0.25, 0.5, 0.03125, 40, 41, 2}, 0.75};
  r.rounds.emplace_back().workload = "dataload";  // failed before its figures
  const std::string text = ResultToJson(r);
  const ordered j = ordered::parse(text);
  const std::vector<std::string> head = JsonMembers(j["rounds"][0].dump());
  ASSERT_GE(head.size(), 3u);
  EXPECT_EQ(head[0], "workload");
  EXPECT_EQ(head[1], "epoch");
  EXPECT_EQ(head[2], "phase");
  EXPECT_FALSE(j["rounds"][1].contains("epoch"));
  auto back = ResultFromJson(text, "result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  const EpochResult* read = EpochOf(back->rounds[0]);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->samples, 64u);
  EXPECT_TRUE(read->warm);
  ASSERT_EQ(read->saves.size(), 1u);
  EXPECT_EQ(read->saves[0].step, 7u);
  ASSERT_TRUE(read->first_batch.has_value());
  EXPECT_EQ(read->first_batch->rank, 3u);
  EXPECT_EQ(read->first_batch->node_start_seconds, 0.0625);
  EXPECT_EQ(read->first_batch->parts, e.first_batch->parts);
  EXPECT_EQ(read->first_batch->dataset_seconds, 0.75);
  EXPECT_EQ(EpochOf(back->rounds[1]), nullptr);
  EXPECT_TRUE(back->rounds[0].foreign.empty());
  EXPECT_EQ(ResultToJson(*back), text);  // the same file again
  ordered bad = j;
  bad["rounds"][0]["epoch"]["samples"] = "x";
  auto refused = ResultFromJson(bad.dump(), "r.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "r.json: rounds[0].epoch.samples: expected a whole number from 0, "
            "found the string \"x\"");
}

struct Note : ResultSection {
  std::string ToJson(const RunResult&) const override { return R"({"n": 1})"; }
};

// A workload added to the registry places its section before the rounds
// after the built-in ones, or at the end; the registry that writes decides
// (the built-in one knows neither, so both go at the end).
TEST(DatasetSections, AnAddedWorkloadsSectionsGoAtTheirPlaces) {
  auto read = [](const std::string&, const std::string&)
      -> absl::StatusOr<std::shared_ptr<const ResultSection>> {
    return std::make_shared<const Note>();
  };
  RunWorkloadEntry early("early", [] { return nullptr; });
  early.results = {{"early_note", read, ResultPlace::kBeforeRounds}};
  RunWorkloadEntry late("late", [] { return nullptr; });
  late.results = {{"a_late_note", read, ResultPlace::kAtEnd}};
  auto with = WorkloadRegistry::BuiltIn().With(early);
  ASSERT_TRUE(with.ok()) << with.status();
  with = with->With(late);
  ASSERT_TRUE(with.ok()) << with.status();
  RunResult r = Searched();
  r.sections["early_note"] = std::make_shared<const Note>();
  r.sections["a_late_note"] = std::make_shared<const Note>();
  std::vector<std::string> members = JsonMembers(ResultToJson(r, *with));
  auto rounds = std::find(members.begin(), members.end(), "rounds");
  ASSERT_NE(rounds, members.end());
  EXPECT_EQ(*(rounds - 1), "early_note");
  EXPECT_EQ(*(rounds - 2), "accelerator_search");
  EXPECT_EQ(members.back(), "a_late_note");
  members = JsonMembers(ResultToJson(r));
  EXPECT_EQ(members[members.size() - 2], "a_late_note");
  EXPECT_EQ(members.back(), "early_note");
}

}  // namespace
}  // namespace ckpt
