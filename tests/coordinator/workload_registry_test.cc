// The registry of run-level workloads (coordinator/workload_registry.h):
// the built-in three by the names run.workload takes, a workload added to a
// copy without touching the built-in one, and the refusals.
#include "coordinator/workload_registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/config.h"
#include "common/config_keys.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_options.h"
#include "coordinator/config_checks.h"

namespace ckpt {
namespace {

class NothingRun : public RunWorkload {
 public:
  absl::Status Preflight(RunContext&, RunResult*) override {
    return absl::OkStatus();
  }
  absl::Status Run(RunContext&, RunResult*) override {
    return absl::OkStatus();
  }
};

RunWorkloadEntry Nothing(std::string name) {
  return {std::move(name), [] { return std::make_unique<NothingRun>(); }};
}

// The names the key run.workload takes are exactly the built-in ones, in
// order: a user can name each, and no other.
TEST(WorkloadRegistry, HoldsEveryBuiltInWorkloadByItsConfigurationName) {
  const auto& builtin = WorkloadRegistry::BuiltIn();
  const std::vector<std::string> names = builtin.Names();
  ASSERT_EQ(names.size(), 4u);
  const KeyDef* key = FindKey("run.workload");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->expected, "one of " + absl::StrJoin(names, ", "));
  for (const std::string& name : names) {
    Config c;
    c.run.workload.clear();
    ASSERT_TRUE(key->set(c, name).ok()) << name;
    EXPECT_EQ(c.run.workload, name);
    EXPECT_TRUE(builtin.Has(name));
    auto run = builtin.New(name);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_NE(run->get(), nullptr);
  }
  Config c;
  EXPECT_FALSE(key->set(c, "serving").ok());
  EXPECT_FALSE(builtin.Has("serving"));
}

TEST(WorkloadRegistry, AddsAWorkloadToACopyOnly) {
  auto with = WorkloadRegistry::BuiltIn().With(Nothing("nothing"));
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_EQ(with->Names().back(), "nothing");
  auto run = with->New("nothing");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_NE(dynamic_cast<NothingRun*>(run->get()), nullptr);
  // Each New makes a run of its own.
  EXPECT_NE(with->New("nothing")->get(), run->get());
  EXPECT_EQ(WorkloadRegistry::BuiltIn().Names().size(), 4u);
  EXPECT_FALSE(WorkloadRegistry::BuiltIn().New("nothing").ok());
}

// One workload prepared by another is the registry's to say: a dataload of
// a dataset of ckptbench's is prepared by datagen (a sweep's
// `prepare: datagen`), one of the user's own is not; what the sweep adds
// and what the preparing run makes come from the dataload's registration.
TEST(WorkloadRegistry, SaysWhichWorkloadPreparesAnother) {
  const auto& builtin = WorkloadRegistry::BuiltIn();
  EXPECT_EQ(builtin.PreparationOf("checkpoint"), nullptr);
  EXPECT_EQ(builtin.PreparationOf("datagen"), nullptr);
  const Preparation* p = builtin.PreparationOf("dataload");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->by, "datagen");
  Config c;
  c.run.workload = "dataload";
  c.storage.path = "/data/ckpt";
  DatasetOf(c).samples = 20000;
  auto values = p->needs(c);
  ASSERT_TRUE(values.has_value());
  ASSERT_EQ(values->size(), 1u);
  EXPECT_EQ((*values)[0].key, "dataset.path");
  EXPECT_EQ((*values)[0].value.rfind("/data/ckpt/datasets/", 0), 0u)
      << (*values)[0].value;
  EXPECT_NE((*values)[0].value.find("-20000x"), std::string::npos);
  DatasetOf(c).path = "/data/mine";
  values = p->needs(c);
  ASSERT_TRUE(values.has_value());
  EXPECT_TRUE(values->empty());  // the user's path stands
  EXPECT_EQ(p->target(c), "/data/mine");
  DatasetOf(c).source = DatasetSource::kListed;
  EXPECT_FALSE(p->needs(c).has_value());  // the user's own files
  auto half = builtin.With(RunWorkloadEntry(
      "half", [] { return std::make_unique<NothingRun>(); }, {}, {}, {},
      Preparation{"datagen", nullptr, nullptr}));
  EXPECT_EQ(half.status().code(), absl::StatusCode::kInvalidArgument);
}

// A workload's checks of the configuration are registered with it: its
// keys' check gets every configuration (whichever workload it runs), after
// the storage locations' and before the shared keys'; its data apart from
// the results directory is checked for its own runs only.
TEST(WorkloadRegistry, RunsEachWorkloadsConfigurationChecks) {
  std::vector<std::string> seen;
  ConfigChecks checks{
      [&seen](const Config& c, const KeyCheckScope& scope) {
        seen.push_back(c.run.workload + (scope.need_storage ? "+" : "-"));
        if (c.cluster.num_nodes > 4) {
          return absl::InvalidArgumentError(
              "cluster.num_nodes: expected at most 4 for tally");
        }
        return absl::OkStatus();
      },
      [](const Config&, const std::string& results_dir) {
        return results_dir == "/tally"
                   ? absl::InvalidArgumentError("results in the tally")
                   : absl::OkStatus();
      }};
  auto with = WorkloadRegistry::BuiltIn().With(RunWorkloadEntry(
      "tally", [] { return std::make_unique<NothingRun>(); }, {}, {}, {}, {},
      checks));
  ASSERT_TRUE(with.ok()) << with.status();
  Config c;
  c.storage.path = "/ckpt";
  c.cluster.num_nodes = 5;
  // A checkpoint run: the tally's check sees it too, and refuses its key.
  absl::Status s = ValidateConfig(c, /*need_storage=*/true, *with);
  EXPECT_EQ(s.message(), "cluster.num_nodes: expected at most 4 for tally");
  EXPECT_EQ(seen, std::vector<std::string>{"checkpoint+"});
  EXPECT_TRUE(ValidateConfig(c, true).ok());  // the built-in ones accept it
  // The storage locations come first: a bad one is named before any
  // workload's check runs.
  c.storage.path = "s3://";
  EXPECT_NE(ValidateConfig(c, false, *with).message().find("storage.path"),
            std::string::npos);
  EXPECT_EQ(seen.size(), 1u);
  c.storage.path = "/ckpt";
  c.cluster.num_nodes = 1;
  EXPECT_TRUE(ValidateConfig(c, false, *with).ok());
  EXPECT_EQ(seen.back(), "checkpoint-");
  // Results apart: only the run's own workload's check.
  EXPECT_TRUE(with->CheckResultsApart(c, "/tally").ok());
  c.run.workload = "tally";
  EXPECT_EQ(with->CheckResultsApart(c, "/tally").message(),
            "results in the tally");
  EXPECT_TRUE(with->CheckResultsApart(c, "/elsewhere").ok());
  // The dataset workloads' own: a dataset inside the results directory.
  c.run.workload = "datagen";
  DatasetOf(c).path = "/results/ds";
  EXPECT_FALSE(
      WorkloadRegistry::BuiltIn().CheckResultsApart(c, "/results").ok());
  c.run.workload = "checkpoint";
  EXPECT_TRUE(
      WorkloadRegistry::BuiltIn().CheckResultsApart(c, "/results").ok());
}

// Another workload's key set for this run is named before what the run's
// own workload needs: a checkpoint run with dataload.checkpoint_every and
// an asynchronous save without run.interval is told the first, as before
// the checks were registered per workload.
TEST(WorkloadRegistry, AnotherWorkloadsKeyIsNamedBeforeTheRunsOwnChecks) {
  Config c;
  c.storage.path = "/ckpt";
  CheckpointOf(c).async = true;
  DataloadOf(c).checkpoint_every = 40;
  absl::Status s = ValidateConfig(c, /*need_storage=*/true);
  EXPECT_NE(
      s.message().find("dataload.checkpoint_every (CKPT_CHECKPOINT_EVERY) "
                       "= 40 with run.workload = checkpoint"),
      std::string::npos)
      << s;
  DataloadOf(c).checkpoint_every = 0;  // then the checkpoint's own
  s = ValidateConfig(c, true);
  EXPECT_NE(s.message().find("run.async (CKPT_ASYNC) = true needs "
                             "run.interval"),
            std::string::npos)
      << s;
  // The run's own workload's check runs after every other's, whatever the
  // order they were registered in.
  std::vector<std::string> seen;
  auto note = [&seen](std::string name) {
    return ConfigChecks{[&seen, name](const Config&, const KeyCheckScope&) {
                          seen.push_back(name);
                          return absl::OkStatus();
                        },
                        {}};
  };
  auto with = WorkloadRegistry::BuiltIn().With(RunWorkloadEntry(
      "a", [] { return std::make_unique<NothingRun>(); }, {}, {}, {}, {},
      note("a")));
  ASSERT_TRUE(with.ok());
  with = with->With(RunWorkloadEntry(
      "b", [] { return std::make_unique<NothingRun>(); }, {}, {}, {}, {},
      note("b")));
  ASSERT_TRUE(with.ok());
  CheckpointOf(c).async = false;
  c.run.workload = "a";
  EXPECT_TRUE(ValidateConfig(c, true, *with).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"b", "a"}));
}

// One workload embedding another's rounds is part of its registration:
// what it sets instead of the embedded workload's keys reaches the
// embedded workload's checks, whose errors name it (dataload's epochs set
// the checkpoint's save interval, so a checkpoint run's asynchronous save
// without run.interval is told of dataload.checkpoint_every, as before the
// link was registered; a workload added later is told of too).
TEST(WorkloadRegistry, AnEmbeddingWorkloadsKeysReachTheEmbeddedsChecks) {
  Config c;
  c.storage.path = "/ckpt";
  CheckpointOf(c).async = true;
  const std::string before =
      "run.async (CKPT_ASYNC) = true needs run.interval (CKPT_INTERVAL) > 0: "
      "the training time between saves that persisting a save overlaps; "
      "expected e.g. CKPT_INTERVAL=30s (or, during a dataload epoch, "
      "dataload.checkpoint_every)";
  EXPECT_EQ(ValidateConfig(c, true).message(), before);

  RunWorkloadEntry lap("lap", [] { return std::make_unique<NothingRun>(); });
  lap.embeds.workload = kCheckpointWorkload;
  lap.embeds.instead.push_back({"run.interval", "during a lap, lap.every"});
  lap.embeds.instead.push_back({"run.seed", "lap.seed"});
  auto with = WorkloadRegistry::BuiltIn().With(lap);
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_EQ(
      ValidateConfig(c, true, *with).message(),
      before.substr(0, before.size() - 1) + "; or, during a lap, lap.every)");
  // Only the embedded workload is told: the dataset workloads' checks are
  // given no key instead of theirs.
  std::vector<size_t> told;
  RunWorkloadEntry seen("seen", [] { return std::make_unique<NothingRun>(); });
  seen.checks.keys = [&told](const Config&, const KeyCheckScope& scope) {
    told.push_back(scope.instead.size());
    return absl::OkStatus();
  };
  seen.embeds.workload = kDatagenWorkload;
  with = with->With(seen);
  ASSERT_TRUE(with.ok()) << with.status();
  CheckpointOf(c).async = false;
  EXPECT_TRUE(ValidateConfig(c, true, *with).ok());
  EXPECT_EQ(told, std::vector<size_t>{0});

  // The embedded workload must be another, registered before it.
  RunWorkloadEntry self("self", [] { return std::make_unique<NothingRun>(); });
  self.embeds.workload = "self";
  RunWorkloadEntry ahead("ahead",
                         [] { return std::make_unique<NothingRun>(); });
  ahead.embeds.workload = "later";
  for (const auto& bad : {self, ahead}) {
    auto refused = WorkloadRegistry::BuiltIn().With(bad);
    ASSERT_FALSE(refused.ok()) << bad.name;
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(
        refused.status().message().find("embeds '" + bad.embeds.workload + "'"),
        std::string::npos)
        << refused.status();
  }
}

// A workload's plan from the configuration is part of its registration:
// every workload's is made for every run, in registration order, recorded
// in the result, and `ckptbench plan` prints each one's text.
TEST(WorkloadRegistry, MakesEveryWorkloadsPlanForEveryRun) {
  Config c;
  c.run.workload = kDataloadWorkload;
  c.cluster.num_devices = "1";
  RunResult result;
  ASSERT_TRUE(WorkloadRegistry::BuiltIn().Plan(c, &result).ok());
  // The checkpoint's plan, recorded for a dataload run as for its own.
  EXPECT_EQ(result.model, "transformer");
  EXPECT_GT(result.checkpoint_bytes, 0u);
  EXPECT_EQ(result.world_size, 1);
  auto text = WorkloadRegistry::BuiltIn().DescribePlan(c, false);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("transformer"), std::string::npos) << *text;
  c.model.name = "no-such-model";
  const absl::Status bad = WorkloadRegistry::BuiltIn().Plan(c, nullptr);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument) << bad;
  EXPECT_NE(bad.message().find("no-such-model"), std::string::npos) << bad;
  EXPECT_FALSE(WorkloadRegistry::BuiltIn().DescribePlan(c, false).ok());

  c.model.name = "transformer";
  Planning planning;
  planning.record = [](const Config& config, RunResult* r) {
    if (config.run.seed == 7) {
      return absl::InvalidArgumentError("run.seed = 7: expected another");
    }
    if (r != nullptr) r->notes.push_back("planned by b");
    return absl::OkStatus();
  };
  planning.describe = [](const Config&, bool per_rank) {
    return absl::StatusOr<std::string>(per_rank ? "b per rank\n" : "b\n");
  };
  auto with = WorkloadRegistry::BuiltIn().With(RunWorkloadEntry(
      "b", [] { return std::make_unique<NothingRun>(); }, {}, {}, {}, {}, {},
      planning));
  ASSERT_TRUE(with.ok()) << with.status();
  RunResult both;
  ASSERT_TRUE(with->Plan(c, &both).ok());
  EXPECT_EQ(both.model, "transformer");
  ASSERT_FALSE(both.notes.empty());
  EXPECT_EQ(both.notes.back(), "planned by b");
  text = with->DescribePlan(c, true);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_TRUE(text->ends_with("\nb per rank\n")) << *text;
  EXPECT_TRUE(with->Plan(c, nullptr).ok());
  c.run.seed = 7;
  EXPECT_EQ(with->Plan(c, nullptr).message(), "run.seed = 7: expected another");
}

TEST(WorkloadRegistry, RefusesATakenNameAnEmptyOneAndNamesTheKnownOnes) {
  auto taken = WorkloadRegistry::BuiltIn().With(Nothing("dataload"));
  EXPECT_EQ(taken.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(taken.status().message().find("'dataload'"), std::string::npos);
  EXPECT_EQ(WorkloadRegistry::BuiltIn().With(Nothing("")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(WorkloadRegistry::BuiltIn()
                .With(RunWorkloadEntry{"empty", nullptr})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  auto unknown = WorkloadRegistry::BuiltIn().New("serving");
  ASSERT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "run.workload: no workload 'serving' (expected one of "
            "checkpoint, datagen, dataload, serve)");
}

}  // namespace
}  // namespace ckpt
