// The registry (coordinator/workload_registry.h): the built-in workloads,
// each registered here once.
#include "coordinator/workload_registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataload_job.h"
#include "common/phase_job.h"
#include "common/serving/serve_job.h"
#include "common/serving/serve_options.h"
#include "common/status_macros.h"
#include "coordinator/checkpoint/checkpoint_config_checks.h"
#include "coordinator/checkpoint/checkpoint_html.h"
#include "coordinator/checkpoint/checkpoint_planning.h"
#include "coordinator/checkpoint/checkpoint_result_json.h"
#include "coordinator/checkpoint/checkpoint_run.h"
#include "coordinator/checkpoint/checkpoint_summary.h"
#include "coordinator/dataset/datagen_dry_run.h"
#include "coordinator/dataset/datagen_run.h"
#include "coordinator/dataset/dataload_html.h"
#include "coordinator/dataset/dataload_run.h"
#include "coordinator/dataset/dataset_config_checks.h"
#include "coordinator/dataset/dataset_result_json.h"
#include "coordinator/dataset/dataset_summary.h"
#include "coordinator/json_codec.h"
#include "coordinator/serving/serve_results.h"
#include "coordinator/serving/serve_run.h"

namespace ckpt {
namespace {

// A built-in workload's registration: its run, summary and checks; the
// rest is set on the entry.
template <typename Run>
RunWorkloadEntry Entry(const char* name, WorkloadSummary summary,
                       ConfigChecks checks) {
  RunWorkloadEntry e(
      name, [] { return std::make_unique<Run>(); }, std::move(summary));
  e.checks = std::move(checks);
  return e;
}

std::vector<RunWorkloadEntry> BuiltInEntries() {
  RunWorkloadEntry checkpoint = Entry<CheckpointRun>(
      kCheckpointWorkload, CheckpointSummary(), {CheckCheckpointKeys, {}});
  checkpoint.planning = CheckpointPlanning();
  checkpoint.report = CheckpointReport();
  checkpoint.results = {ReshardSectionCodec(), GoodputSectionCodec()};
  checkpoint.round_result = VisibilitySectionCodec();

  RunWorkloadEntry datagen =
      Entry<DatagenRun>(kDatagenWorkload, DatagenSummary(),
                        {CheckDatasetKeys, CheckDatasetApartFromResults});
  datagen.results = {DatasetSectionCodec()};
  datagen.describe_prepare = DescribeDatasetPrepare;

  RunWorkloadEntry dataload =
      Entry<DataloadRun>(kDataloadWorkload, DataloadSummary(),
                         {CheckDataloadKeys, CheckDatasetApartFromResults});
  dataload.results = {AcceleratorSearchSectionCodec()};
  dataload.round_result = EpochSectionCodec();
  dataload.report = DataLoaderSection;
  dataload.prepared = DataloadPreparation();
  dataload.embeds = DataloadEmbedding();
  RunWorkloadEntry serve =
      Entry<ServeRun>(kServeWorkload, ServeSummary(), {CheckServeKeys, {}});
  serve.results = {ServingModelSectionCodec()};
  serve.round_result = ReplicaLoadSectionCodec();
  serve.report = ReplicaLoadSection;
  serve.nodes_in_one_process = kMaxServeReplicasInOneProcess;
  return {std::move(checkpoint), std::move(datagen), std::move(dataload),
          std::move(serve)};
}

}  // namespace

const WorkloadRegistry& WorkloadRegistry::BuiltIn() {
  static const WorkloadRegistry* const kBuiltIn = [] {
    auto* r = new WorkloadRegistry;
    r->entries_ = BuiltInEntries();
    return r;
  }();
  return *kBuiltIn;
}

absl::StatusOr<WorkloadRegistry> WorkloadRegistry::With(
    RunWorkloadEntry entry) const {
  if (entry.name.empty() || !entry.make) {
    return absl::InvalidArgumentError(
        "a workload needs a name and a way to make its run");
  }
  const Preparation& prep = entry.prepared;
  if (!prep.by.empty() && (!prep.needs || !prep.target)) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload '", entry.name, "': prepared by '", prep.by,
                     "' needs what it needs and what the preparing run makes"));
  }
  for (size_t i = 0; i < entry.results.size(); ++i) {
    RETURN_IF_ERROR(CheckSection(entry, entry.results[i], /*round=*/false));
    for (size_t k = 0; k < i; ++k) {
      if (entry.results[k].member == entry.results[i].member) {
        return absl::AlreadyExistsError(
            absl::StrCat("workload '", entry.name, "': result.json's member '",
                         entry.results[i].member, "' is its section twice"));
      }
    }
  }
  RETURN_IF_ERROR(CheckSection(entry, entry.round_result, /*round=*/true));
  const std::string& embedded = entry.embeds.workload;
  if (!embedded.empty() && (embedded == entry.name || !Has(embedded))) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload '", entry.name, "': embeds '", embedded,
                     "', which is not another registered workload"));
  }
  if (Find(entry.name) != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrCat("workload '", entry.name, "' is registered already"));
  }
  WorkloadRegistry copy = *this;
  copy.entries_.push_back(std::move(entry));
  return copy;
}

absl::Status WorkloadRegistry::CheckSection(const RunWorkloadEntry& entry,
                                            const ResultSectionCodec& codec,
                                            bool round) const {
  const std::string& member = codec.member;
  if (member.empty()) return absl::OkStatus();
  const char* level = round ? "a round's" : "the run's";
  if (!codec.read) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload '", entry.name, "': ", level,
                     " result section '", member, "' needs a reader"));
  }
  if (round != IsRoundPlace(codec.place)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload '", entry.name, "': ", level, " result section '", member,
        "' placed at the other level's place"));
  }
  const bool taken =
      round
          ? IsRoundResultMember(member) || RoundSectionCodec(member) != nullptr
          : IsRunResultMember(member) || SectionCodec(member) != nullptr;
  if (taken) {
    return absl::AlreadyExistsError(
        absl::StrCat("workload '", entry.name, "': result.json's member '",
                     member, "' of ", level, " object is taken"));
  }
  return absl::OkStatus();
}

const RunWorkloadEntry* WorkloadRegistry::Find(std::string_view name) const {
  for (const auto& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<RunWorkload>> WorkloadRegistry::New(
    std::string_view name) const {
  if (const RunWorkloadEntry* e = Find(name)) return e->make();
  return absl::InvalidArgumentError(
      absl::StrCat("run.workload: no workload '", std::string(name),
                   "' (expected one of ", absl::StrJoin(Names(), ", "), ")"));
}

bool WorkloadRegistry::Has(std::string_view name) const {
  return Find(name) != nullptr;
}

int WorkloadRegistry::NodesInOneProcess(std::string_view name) const {
  const RunWorkloadEntry* e = Find(name);
  return e == nullptr ? 1 : e->nodes_in_one_process;
}

absl::Status WorkloadRegistry::CheckKeys(const Config& config,
                                         bool need_storage) const {
  // Another workload's key set for this run is the first thing to fix
  // (dataload.checkpoint_every on a checkpoint run: "expected run.workload
  // = dataload"), then what the run's own workload needs.
  const RunWorkloadEntry* own = Find(config.run.workload);
  for (const auto& e : entries_) {
    if (&e == own || !e.checks.keys) continue;
    auto s = e.checks.keys(config, ScopeOf(e.name, need_storage));
    if (!s.ok()) return s;
  }
  if (own == nullptr || !own->checks.keys) return absl::OkStatus();
  return own->checks.keys(config, ScopeOf(own->name, need_storage));
}

KeyCheckScope WorkloadRegistry::ScopeOf(std::string_view name,
                                        bool need_storage) const {
  KeyCheckScope scope;
  scope.need_storage = need_storage;
  for (const auto& e : entries_) {
    if (e.embeds.workload != name) continue;
    scope.instead.insert(scope.instead.end(), e.embeds.instead.begin(),
                         e.embeds.instead.end());
  }
  return scope;
}

absl::Status WorkloadRegistry::CheckResultsApart(
    const Config& config, const std::string& results_dir) const {
  const RunWorkloadEntry* e = Find(config.run.workload);
  if (e == nullptr || !e->checks.results_apart) return absl::OkStatus();
  return e->checks.results_apart(config, results_dir);
}

absl::Status WorkloadRegistry::Plan(const Config& config,
                                    RunResult* result) const {
  for (const RunWorkloadEntry& e : entries_) {
    if (e.planning.record) RETURN_IF_ERROR(e.planning.record(config, result));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> WorkloadRegistry::DescribePlan(
    const Config& config, bool per_rank) const {
  std::string text;
  for (const RunWorkloadEntry& e : entries_) {
    if (!e.planning.describe) continue;
    ASSIGN_OR_RETURN(std::string part, e.planning.describe(config, per_rank));
    text += part;
  }
  return text;
}

const Preparation* WorkloadRegistry::PreparationOf(
    std::string_view name) const {
  const RunWorkloadEntry* e = Find(name);
  return e != nullptr && !e->prepared.by.empty() ? &e->prepared : nullptr;
}

const PrepareDescription* WorkloadRegistry::PrepareDescriptionOf(
    std::string_view name) const {
  const RunWorkloadEntry* e = Find(name);
  return e != nullptr && e->describe_prepare ? &e->describe_prepare : nullptr;
}

const WorkloadSummary* WorkloadRegistry::SummaryOf(
    std::string_view name) const {
  const RunWorkloadEntry* e = Find(name);
  return e != nullptr ? &e->summary : nullptr;
}

const ResultSectionCodec* WorkloadRegistry::SectionCodec(
    std::string_view member) const {
  for (const auto& e : entries_) {
    for (const auto& codec : e.results) {
      if (!codec.member.empty() && codec.member == member) return &codec;
    }
  }
  return nullptr;
}

const ResultSectionCodec* WorkloadRegistry::RoundSectionCodec(
    std::string_view member) const {
  for (const auto& e : entries_) {
    if (!e.round_result.member.empty() && e.round_result.member == member) {
      return &e.round_result;
    }
  }
  return nullptr;
}

void WorkloadRegistry::ForEachSection(
    ResultPlace place,
    const std::function<void(const ResultSectionCodec&)>& fn) const {
  for (const auto& e : entries_) {
    if (IsRoundPlace(place)) {
      if (!e.round_result.member.empty() && e.round_result.place == place) {
        fn(e.round_result);
      }
      continue;
    }
    for (const auto& codec : e.results) {
      if (!codec.member.empty() && codec.place == place) fn(codec);
    }
  }
}

void WorkloadRegistry::ForEachReport(
    const std::function<void(const WorkloadReport&)>& fn) const {
  for (const auto& e : entries_) {
    if (e.report) fn(e.report);
  }
}

void WorkloadRegistry::ForEachSummary(
    const std::function<void(const WorkloadSummary&)>& fn) const {
  for (const auto& e : entries_) fn(e.summary);
}

bool WorkloadRegistry::NamedInResult(std::string_view name) {
  return name != RunOptions().workload;
}

std::vector<std::string> WorkloadRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& e : entries_) names.push_back(e.name);
  return names;
}

}  // namespace ckpt
