#include "tests/testing/counting_workload.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/clock.h"

namespace ckpt {
namespace {

namespace t = ::ckptbench::test;

class CountingPhase : public NodeWorkload {
 public:
  absl::StatusOr<PrepareOutcome> Prepare(PhaseJob job, StorageSet&,
                                         const std::atomic<bool>&) override {
    if (!job_.ParseFromString(job.workload_job) || job_.items() == 0) {
      return absl::InvalidArgumentError("counting: a job without items");
    }
    return PrepareOutcome{};  // opened no storage
  }

  PhaseOutcome Run(const NodePhaseContext& ctx) override {
    PhaseOutcome out;
    absl::StatusOr<std::string> report = Count(ctx);
    if (report.ok()) {
      out.workload_report = *std::move(report);
    } else {
      out.status = report.status();
    }
    return out;
  }

  std::vector<RankProgress> Progress() const override {
    return {{0, done_.load(), job_.items()}};
  }

 private:
  absl::StatusOr<std::string> Count(const NodePhaseContext& ctx) {
    t::CountReport report;
    report.set_node(job_.node());
    report.set_started_unix_ns(NowUnixNs());
    for (uint32_t k = 1; k <= job_.items(); ++k) {
      if (ctx.aborted()) {
        return absl::AbortedError(
            absl::StrCat("counting: aborted after ", k - 1, " items"));
      }
      std::this_thread::sleep_for(
          std::chrono::duration<double>(job_.item_seconds()));
      report.set_counted(k);
      done_ = k;
      ctx.progress->SendIfDue();
      if (k == job_.ask_at()) {
        t::CountAsk ask;
        ask.set_node(job_.node());
        ask.set_at(k);
        absl::StatusOr<std::string> answer = ctx.ask(ask.SerializeAsString());
        if (!answer.ok()) return answer.status();
        t::CountAnswer a;
        if (!a.ParseFromString(*answer)) {
          return absl::DataLossError("counting: an answer that does not parse");
        }
        report.set_answered_action(a.action());
        report.set_nodes_asked(a.nodes_asked());
      }
      if (static_cast<int>(job_.node()) == job_.fail_node() &&
          k == job_.fail_at()) {
        return absl::DataLossError(
            absl::StrCat("counting: failed on purpose after ", k, " items"));
      }
    }
    return report.SerializeAsString();
  }

  t::CountJob job_;
  std::atomic<uint64_t> done_{0};
};

}  // namespace

NodeWorkloads CountingNodeWorkloads() {
  return {
      {kCountingWorkload, [] { return std::make_unique<CountingPhase>(); }}};
}

void CountingRound::Begin(RoundResult* result) {
  result->workload = kCountingWorkload;
  result->index = index_;
}

std::string CountingRound::Title(RoundNameForm /*form*/) const {
  return absl::StrCat("count ", index_);
}

uint64_t CountingRound::ProgressBytes() const {
  return static_cast<uint64_t>(spec_.items) * nodes_;
}

PhaseJob CountingRound::BuildPrepare(size_t node) {
  t::CountJob job;
  job.set_node(static_cast<uint32_t>(node));
  job.set_items(spec_.items);
  job.set_item_seconds(spec_.item_seconds);
  job.set_ask_at(spec_.ask_at);
  job.set_fail_node(spec_.fail_node);
  job.set_fail_at(spec_.fail_at);
  PhaseJob prepare;
  prepare.workload = kCountingWorkload;
  prepare.workload_job = job.SerializeAsString();
  return prepare;
}

void CountingRound::OnAction(size_t node, const ActionAsk& ask,
                             ActionReplyFn reply) {
  t::CountAsk a;
  std::vector<std::pair<ActionAsk, ActionReplyFn>> release;
  uint32_t asked = 0;
  uint64_t action = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++asks_;
    if (!a.ParseFromString(ask.payload) || a.node() != node) {
      reply(
          {ask.round_id,
           ask.action_id,
           absl::FailedPreconditionError("counting: an ask from another node"),
           {}});
      return;
    }
    waiting_.emplace_back(ask, std::move(reply));
    if (waiting_.size() < nodes_) return;  // the barrier: all, or none
    release.swap(waiting_);
    asked = static_cast<uint32_t>(release.size());
    action = ++actions_;
  }
  t::CountAnswer answer;
  answer.set_nodes_asked(asked);
  answer.set_action(action);
  for (auto& [req, fn] : release) {
    fn({req.round_id, req.action_id, absl::OkStatus(),
        answer.SerializeAsString()});
  }
}

absl::Status CountingRound::CheckReport(size_t node, const PhaseOutcome& report,
                                        const std::string& who) {
  if (!report.status.ok()) return absl::OkStatus();
  t::CountReport r;
  if (!r.ParseFromString(report.workload_report) || r.node() != node ||
      r.counted() > spec_.items) {
    return absl::DataLossError(
        absl::StrCat(who, " sent a counting report it cannot have made"));
  }
  return absl::OkStatus();
}

void CountingRound::Aggregate(const std::vector<PhaseOutcome>& reports,
                              const std::vector<PrepareOutcome>& /*prepared*/,
                              RoundResult* result) {
  ++aggregations_;
  seconds_at_aggregate_ = result->seconds;
  std::lock_guard<std::mutex> lock(mu_);
  reports_.clear();
  for (size_t i = 0; i < reports.size(); ++i) {
    t::CountReport r;
    (void)r.ParseFromString(reports[i].workload_report);
    result->bytes += r.counted();
    NodeResult n;
    n.node = static_cast<int>(i);
    n.bytes = r.counted();
    n.start_lag_seconds = reports[i].start_lag_seconds;
    result->nodes.push_back(n);
    reports_.push_back(r);
  }
}

void CountingRound::Conclude(const std::vector<PrepareOutcome>&, int64_t,
                             RoundResult* result) {
  concluded_ = true;
  result->throughput_mib_s =
      result->seconds > 0
          ? static_cast<double>(result->bytes) / result->seconds / (1 << 20)
          : 0;
}

std::vector<ckptbench::test::CountReport> CountingRound::reports() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reports_;
}

int CountingRound::asks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return asks_;
}

}  // namespace ckpt
