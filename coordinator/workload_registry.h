// The workloads a run can drive, each registered once: its name (the value
// of run.workload), how to make its run (coordinator/run_workload.h), its
// checks of the configuration, its parts of the terminal summary
// (coordinator/summary_parts.h), its own
// sections of result.json (coordinator/result_section.h) and its sections
// of the HTML report (coordinator/report_parts.h).
// The coordinator finds a run's workload here and knows none by name. A
// registry is a value: the built-in one is immutable, and a test (or a
// tool built on ckptbench) adds its own workloads to a copy.
#ifndef CKPTBENCH_COORDINATOR_WORKLOAD_REGISTRY_H_
#define CKPTBENCH_COORDINATOR_WORKLOAD_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/report_parts.h"
#include "coordinator/result_section.h"
#include "coordinator/run_workload.h"
#include "coordinator/summary_parts.h"

namespace ckpt {

using RunWorkloadFactory = std::function<std::unique_ptr<RunWorkload>()>;

struct RunWorkloadEntry {
  RunWorkloadEntry(std::string name, RunWorkloadFactory make,
                   WorkloadSummary summary = {},
                   std::vector<ResultSectionCodec> results = {},
                   WorkloadReport report = {}, Preparation prepared = {},
                   ConfigChecks checks = {}, Planning planning = {},
                   PrepareDescription describe_prepare = {},
                   Embedding embeds = {})
      : name(std::move(name)),
        make(std::move(make)),
        summary(std::move(summary)),
        results(std::move(results)),
        report(std::move(report)),
        prepared(std::move(prepared)),
        checks(std::move(checks)),
        planning(std::move(planning)),
        describe_prepare(std::move(describe_prepare)),
        embeds(std::move(embeds)) {}
  std::string name;  // run.workload's value
  RunWorkloadFactory make;
  WorkloadSummary summary;  // its parts of the terminal summary
  // Its sections of the run's object in result.json, if any.
  std::vector<ResultSectionCodec> results;
  // Its section of its rounds in result.json (placed at a round's place:
  // kRoundHead, kRoundFigures), if any.
  ResultSectionCodec round_result;
  WorkloadReport report;  // its sections of the HTML report, if any
  Preparation prepared;   // the workload that prepares it, if any
  ConfigChecks checks;    // its checks of the configuration, if any
  Planning planning;      // its plan from the configuration, if any
  // What it writes when it prepares another's point, in a dry run; set
  // when it prepares one.
  PrepareDescription describe_prepare;
  Embedding embeds;  // the workload whose rounds it embeds, if any
  // The node agents `ckptbench run` may hold in one process for it: 1, or
  // more where several nodes on one host mean something (a serving fleet's
  // replicas sharing the host's page cache).
  int nodes_in_one_process = 1;
};

class WorkloadRegistry {
 public:
  // checkpoint, datagen, dataload and serve.
  static const WorkloadRegistry& BuiltIn();

  // This registry and `entry`; AlreadyExists when its name or one of its
  // result sections' members is taken (by another workload, by a member
  // every result.json's run or round has, or by another of its own),
  // InvalidArgument when it is empty, has no factory, has a section member
  // without a reader or at the wrong level's place, or embeds a workload
  // that is not registered before it.
  absl::StatusOr<WorkloadRegistry> With(RunWorkloadEntry entry) const;

  // The run of workload `name`; InvalidArgument naming the registered ones
  // when there is none.
  absl::StatusOr<std::unique_ptr<RunWorkload>> New(std::string_view name) const;

  // Whether workload `name` is registered.
  bool Has(std::string_view name) const;
  // Its nodes_in_one_process; 1 when it is not registered.
  int NodesInOneProcess(std::string_view name) const;
  // The summary parts of workload `name`; null when there is none.
  const WorkloadSummary* SummaryOf(std::string_view name) const;
  // Every workload's checks of its keys: the other workloads' first, in
  // registration order (each refuses its own keys set for this run), then
  // config.run.workload's own. Each is told what the workloads embedding
  // it set instead of its keys. The first error, or OK.
  absl::Status CheckKeys(const Config& config, bool need_storage) const;
  // The check of config.run.workload's data apart from `results_dir`; OK
  // when it has none.
  absl::Status CheckResultsApart(const Config& config,
                                 const std::string& results_dir) const;
  // Every workload's plan of `config`, in registration order, each
  // recorded in `result` when it is not null; the first error, or OK.
  absl::Status Plan(const Config& config, RunResult* result) const;
  // Every workload's `ckptbench plan` text for `config`, in registration
  // order; the first error.
  absl::StatusOr<std::string> DescribePlan(const Config& config,
                                           bool per_rank) const;
  // How workload `name` is prepared by another; null when it is not.
  const Preparation* PreparationOf(std::string_view name) const;
  // What workload `name` says in a dry run of its run preparing a point;
  // null when it says nothing.
  const PrepareDescription* PrepareDescriptionOf(std::string_view name) const;
  // The codec of the run's result section under `member`; null when no
  // workload has one there.
  const ResultSectionCodec* SectionCodec(std::string_view member) const;
  // The codec of a round's result section under `member`; null when no
  // workload has one there.
  const ResultSectionCodec* RoundSectionCodec(std::string_view member) const;
  // Each workload's result section codec at `place` (a round's place: its
  // rounds'), in registration order.
  void ForEachSection(
      ResultPlace place,
      const std::function<void(const ResultSectionCodec&)>& fn) const;
  // Each workload's report that has parts, in registration order.
  void ForEachReport(
      const std::function<void(const WorkloadReport&)>& fn) const;
  // Each workload's summary parts, in registration order.
  void ForEachSummary(
      const std::function<void(const WorkloadSummary&)>& fn) const;

  // In registration order.
  std::vector<std::string> Names() const;

  // Whether result.json names workload `name` (a run's or a round's
  // "workload"): every workload but run.workload's default, the
  // checkpoint's, which a file that names none ran (as every file did
  // before there were other workloads).
  static bool NamedInResult(std::string_view name);

 private:
  // The entry registered as `name`; null when there is none.
  const RunWorkloadEntry* Find(std::string_view name) const;
  // What the check of workload `name`'s keys is given.
  KeyCheckScope ScopeOf(std::string_view name, bool need_storage) const;
  // OK when `entry`'s section `codec` (of a round's object when `round`)
  // can be registered beside this registry's; With()'s error when not.
  absl::Status CheckSection(const RunWorkloadEntry& entry,
                            const ResultSectionCodec& codec, bool round) const;

  std::vector<RunWorkloadEntry> entries_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_WORKLOAD_REGISTRY_H_
