// The report of runs whose result.json came from another build: the
// workload and the sections this build does not read are named under
// "Not read by this build" (escaped for HTML), the report is still made,
// and the other runs' figures are unchanged by them.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/json_codec.h"
#include "coordinator/workload_registry.h"
#include "report/html_report.h"
#include "report/sweep_data.h"

namespace ckpt {
namespace {

using nlohmann::json;

LoadedRun Read(const std::string& name, const json& j) {
  LoadedRun run;
  run.name = name;
  run.point_name = name;
  auto r = ResultFromJson(j.dump(), name + "/result.json");
  EXPECT_TRUE(r.ok()) << r.status();
  if (r.ok()) {
    run.has_result = true;
    run.result = *r;
    run.status = Name(r->status);
  }
  return run;
}

json Saved() {
  RunResult r;
  r.status = RunStatus::kOk;
  RoundResult round;
  round.phase = Phase::kSave;
  round.index = 1;
  round.seconds = 2.0;
  round.bytes = 1 << 20;
  round.throughput_mib_s = 0.5;
  r.rounds.push_back(round);
  return json::parse(ResultToJson(r));
}

TEST(Report, AnotherBuildsWorkloadAndSectionsAreNamedAsNotRead) {
  json other = Saved();
  other["workload"] = "serving<b>";
  other["replicas"] = {{"count", 8}};
  SweepData d;
  d.name = "t";
  d.runs = {Read("mine", Saved()), Read("theirs", other)};
  const std::string html = HtmlReport(d);
  EXPECT_NE(html.find("<h2>Not read by this build</h2>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<li>theirs: workload &#39;serving&lt;b&gt;&#39; "
                      "(unknown to this build); sections carried through "
                      "unread: replicas</li>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("<li>mine:"), std::string::npos) << html;
  EXPECT_EQ(html.find("serving<b>"), std::string::npos) << "escaped";

  SweepData only_mine;
  only_mine.name = "t";
  only_mine.runs = {Read("mine", Saved())};
  EXPECT_EQ(HtmlReport(only_mine).find("Not read by this build"),
            std::string::npos);
}

// The overview names what the first run ran, as its workload's summary
// part says: a checkpoint's plan, a dataset run's dataset; a workload this
// build does not know adds no row.
TEST(Report, TheOverviewSaysWhatTheFirstRunRanByItsWorkload) {
  auto overview = [](const RunResult& r) {
    LoadedRun run;
    run.name = run.point_name = "r";
    run.has_result = true;
    run.status = "ok";
    run.result = r;
    SweepData d;
    d.name = "t";
    d.runs = {run};
    return HtmlReport(d);
  };
  RunResult ckpt;
  ckpt.model = "llama3-8b";
  ckpt.checkpoint_bytes = 1234;
  ckpt.world_size = 8;
  ckpt.files = 16;
  EXPECT_NE(overview(ckpt).find("<td>first run&#39;s plan</td><td>llama3-8b, "
                                "1234 bytes, 8 rank(s), 16 file(s)</td>"),
            std::string::npos);
  RunResult load;
  load.workload = "dataload";
  auto dataset = std::make_shared<DatasetResult>();
  dataset->uri = "s3://b/ds";
  dataset->spec.samples = 100;
  dataset->totals.objects = 10;
  dataset->totals.bytes = 4096;
  load.sections[kDatasetSection] = dataset;
  const std::string html = overview(load);
  EXPECT_NE(html.find("<td>first run&#39;s dataset (dataload)</td><td>s3://b/"
                      "ds, "),
            std::string::npos)
      << html;
  EXPECT_NE(html.find(", 100 samples, 10 objects, 4096 bytes</td>"),
            std::string::npos);
  EXPECT_EQ(html.find("first run&#39;s plan"), std::string::npos);
  load.workload = "serving";  // not this build's
  EXPECT_EQ(overview(load).find("first run&#39;s"), std::string::npos);
}

// A workload's report part is given the runs with a result, by their
// labels, their points and values, and what the sweep swept; the data
// loader's section is dataload's registered part, drawn after the shared
// sections as before.
TEST(Report, AWorkloadsPartIsGivenTheRunsAndWhatTheSweepSwept) {
  SweepData d;
  d.name = "t";
  d.is_sweep = true;
  d.param_names = {"dataload.num_workers"};
  LoadedRun a = Read("run-000", Saved());
  a.values = {{"dataload.num_workers", "2"}};
  LoadedRun missing;
  missing.name = missing.point_name = "run-001";
  missing.status = "missing";
  d.runs = {a, missing};
  const ReportInput input = ReportInputOf(d);
  EXPECT_EQ(input.all_runs, 2u);
  EXPECT_TRUE(input.is_sweep);
  EXPECT_EQ(input.swept, d.param_names);
  ASSERT_EQ(input.runs.size(), 1u);
  EXPECT_EQ(input.runs[0].label, "run-000");
  EXPECT_EQ(input.runs[0].point_name, "run-000");
  EXPECT_EQ(input.runs[0].values, a.values);
  EXPECT_EQ(input.runs[0].result, &d.runs[0].result);

  RunResult load;
  load.workload = "dataload";
  RoundResult epoch;
  epoch.index = 1;
  EpochResult& e = NewEpoch(&epoch);
  e.samples = 64;
  e.samples_per_second = 321;
  load.rounds.push_back(epoch);
  LoadedRun run;
  run.name = run.point_name = "r";
  run.has_result = true;
  run.result = load;
  SweepData one;
  one.name = "t";
  one.runs = {run};
  const std::string html = HtmlReport(one);
  const size_t loader = html.find("<h2>The data loader</h2>");
  ASSERT_NE(loader, std::string::npos) << html;
  EXPECT_NE(html.find("<td>epoch 1 (cold)</td>", loader), std::string::npos);
  EXPECT_LT(loader, html.find("</body></html>"));
  int parts = 0;
  WorkloadRegistry::BuiltIn().ForEachReport(
      [&parts](const WorkloadReport&) { ++parts; });
  EXPECT_EQ(parts, 3);  // the checkpoint's, dataload's and serve's
}

// The checkpoint's sections are its registered parts, drawn where the
// report drew them before they were: time to visible and the resharded
// restores after the stragglers and before the timeline; the training loop
// and goodput after the timeline and before the data loader's. A
// workload's parts at each place follow the ones registered before it.
TEST(Report, EachWorkloadsPartsAreDrawnAtTheirPlacesInRegistrationOrder) {
  RunResult r;
  RoundResult save;
  save.index = 1;
  save.seconds = 2;
  Visibility seen;
  seen.visible = true;
  seen.seconds = 0.5;
  SetVisibility(&save, seen);
  save.staging.async = true;
  Straggler slow;
  slow.ratio_to_median = 2;
  save.stragglers.push_back(slow);
  r.rounds.push_back(save);
  RoundResult load = save;
  load.phase = Phase::kLoad;
  load.resharded = true;
  r.rounds.push_back(load);
  ReshardResult reshard;
  reshard.ranks.emplace_back();
  SetReshard(&r, reshard);
  SetGoodputAt(&r, 3600, 0);
  RoundResult epoch;
  epoch.workload = "dataload";
  epoch.index = 1;
  NewEpoch(&epoch).samples = 64;
  r.rounds.push_back(epoch);
  LoadedRun run;
  run.name = run.point_name = "r";
  run.has_result = true;
  run.result = r;
  SweepData one;
  one.name = "t";
  one.runs = {run};

  RunWorkloadEntry tail("tail", [] { return nullptr; });
  tail.report.parts = {
      {ReportPlace::kAfterTimeline,
       [](const ReportInput& in) {
         return "<h2>tail after " + std::to_string(in.runs.size()) + "</h2>";
       }},
      {ReportPlace::kBeforeTimeline,
       [](const ReportInput&) { return std::string("<h2>tail before</h2>"); }}};
  auto with = WorkloadRegistry::BuiltIn().With(tail);
  ASSERT_TRUE(with.ok()) << with.status();
  const std::string html = HtmlReport(one, *with);
  const std::vector<std::string> order = {
      "<h2>Stragglers</h2>",
      "<h2>Time to visible</h2>",
      "<h2>Resharded restores</h2>",
      "<h2>tail before</h2>",
      "<h2>Round timelines</h2>",
      "<h2>What saves cost the training loop</h2>",
      "<h2>Goodput</h2>",
      "<h2>The data loader</h2>",
      "<h2>tail after 1</h2>"};
  size_t at = 0;
  for (const std::string& heading : order) {
    const size_t found = html.find(heading);
    ASSERT_NE(found, std::string::npos) << heading;
    EXPECT_GT(found, at) << heading;
    at = found;
  }
  // The built-in registry's report has neither of the tail's.
  EXPECT_EQ(HtmlReport(one).find("tail "), std::string::npos);
}

// The points' table at the end of a sweep: a point's name comes from
// sweep.json on disk and is escaped for the terminal; its rates as before.
TEST(Report, TheSweepsPointTableEscapesPointNames) {
  SweepData d;
  d.name = "t";
  d.is_sweep = true;
  LoadedRun run = Read("run-000", Saved());
  run.point_name = "w=\x1b]0;owned\x07";
  d.runs = {run};
  const std::string table = SweepPointsTable(d);
  EXPECT_EQ(table.find('\x1b'), std::string::npos) << table;
  EXPECT_EQ(table.find('\x07'), std::string::npos) << table;
  EXPECT_NE(table.find("w=\\x1B]0;owned\\x07"), std::string::npos) << table;
  EXPECT_NE(table.find("save MiB/s"), std::string::npos) << table;
  // 1 MiB in 2 s.
  EXPECT_NE(table.find("    1            0.5"), std::string::npos) << table;
  EXPECT_EQ(table.find("point (data loader)"), std::string::npos) << table;
}

}  // namespace
}  // namespace ckpt
