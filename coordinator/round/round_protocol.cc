#include "coordinator/round/round_protocol.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/bounded_tasks.h"
#include "common/clock.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "coordinator/reply_check.h"
#include "coordinator/round/clock_sync.h"

namespace ckpt {
namespace {

using Clock = SteadyClock;

// Least margin between announcing the start instant and reaching it, plus
// a share per node: the start messages go out one after another, and at
// 1024 nodes (coordination_bench, when they went out one thread per node)
// a flat 50 ms let the last nodes start 0.9 s late, so the round measured
// the dispatch. The margin is untimed.
constexpr double kStartMarginSeconds = 0.05;
constexpr double kStartMarginPerNodeSeconds = 0.001;

// Node `node`'s delay after the common instant, bounded
// (RoundWorkload::StartDelaySeconds).
int64_t StartDelayNs(const RoundWorkload& workload, size_t node) {
  const double d = workload.StartDelaySeconds(node);
  if (!std::isfinite(d) || d <= 0) return 0;
  return static_cast<int64_t>(std::min(d, kMaxStartDelaySeconds) * 1e9);
}

}  // namespace

std::string NodeError(const NodeClient& n, const std::string& step,
                      absl::string_view msg) {
  std::string who = n.Who();
  if (absl::StartsWith(msg, who)) {
    return step.empty() ? std::string(msg) : absl::StrCat(msg, " (", step, ")");
  }
  return step.empty() ? absl::StrCat(who, ": ", msg)
                      : absl::StrCat(who, ": ", step, ": ", msg);
}

RoundProtocol::RoundProtocol(std::vector<NodeClient*> nodes,
                             ProgressPrinter* progress,
                             double progress_interval)
    : nodes_(std::move(nodes)),
      progress_(progress),
      progress_interval_(progress_interval),
      fanout_(nodes_.size(),
              std::all_of(nodes_.begin(), nodes_.end(),
                          [](const NodeClient* n) { return n->async(); })) {}

void RoundProtocol::AbortAll(const std::string& run_id,
                             const std::string& reason) {
  for (auto* n : nodes_) (void)n->Abort(run_id, reason);
}

void RoundProtocol::ReestimateClocks(RoundResult* result) {
  std::vector<ClockEstimate> est(nodes_.size());
  std::vector<absl::Status> errors(nodes_.size());  // one slot per thread
  {
    BoundedTasks tasks(kClockThreads);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (!nodes_[i]->remote()) continue;
      (void)tasks.Start([&, i] {
        auto e = EstimateClock(*nodes_[i], kClockExchangesPerRound);
        if (e.ok()) {
          est[i] = *e;
        } else {
          errors[i] = e.status();
        }
        return absl::OkStatus();  // a failed estimate keeps the last one
      });
    }
    (void)tasks.Wait(0);
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i]->remote()) continue;
    if (!errors[i].ok() || est[i].samples == 0) {
      LOG_WARN("%s: clock offset not re-estimated (%s); keeping %.3f ms",
               nodes_[i]->Who(), errors[i].message(),
               static_cast<double>(nodes_[i]->clock_offset_ns()) / 1e6);
      continue;
    }
    // A noisier estimate (round trip over twice the kept one's: the
    // offset's error is up to half the round trip) keeps the last one.
    const double kept_rtt = nodes_[i]->rtt_seconds();
    if (kept_rtt > 0 && est[i].rtt_seconds > 2 * kept_rtt) {
      est[i].offset_ns = nodes_[i]->clock_offset_ns();
      est[i].rtt_seconds = kept_rtt;
    }
    nodes_[i]->SetClock(est[i].offset_ns, est[i].rtt_seconds);
    result->clocks.push_back({nodes_[i]->index(), nodes_[i]->host(),
                              static_cast<double>(est[i].offset_ns) / 1e6,
                              est[i].rtt_seconds * 1e3});
  }
}

// One round's state, as the protocol's steps share it.
struct RoundProtocol::Round {
  RoundWorkload& workload;
  const RoundIds& ids;
  RoundResult result;
  std::vector<PrepareOutcome> prepared;
  std::vector<PhaseOutcome> reports;
  std::vector<absl::Status> refused;  // a report that could not be held
  // The first error in time is the cause; the aborts it triggers make the
  // other nodes fail too, and those must not be reported instead of it.
  std::mutex error_mu;
  std::string first_error;
  ErrorKind first_kind = ErrorKind::kUnspecified;

  // Notes a node's error; true if it is the round's first.
  bool NoteError(std::string error, ErrorKind kind) {
    std::lock_guard<std::mutex> lock(error_mu);
    if (!first_error.empty()) return false;
    first_error = std::move(error);
    first_kind = kind;
    return true;
  }
  RoundResult Fail(std::string error,
                   ErrorKind kind = ErrorKind::kUnspecified) {
    result.status = RunStatus::kFailed;
    result.error = std::move(error);
    result.error_kind = std::string(Name(kind));
    LOG_ERROR("%s failed: %s", workload.Title(RoundNameForm::kLog),
              result.error);
    return std::move(result);
  }
};

bool RoundProtocol::PrepareAll(Round& round) {
  const size_t n = nodes_.size();
  round.prepared.resize(n);
  std::vector<absl::Status> errors(n);
  fanout_.Run(n, [&](size_t i, const std::function<void()>& done) {
    PhaseJob job = round.workload.BuildPrepare(i);
    job.run_id = round.ids.run_id;
    job.round_id = round.ids.round_id;
    nodes_[i]->PrepareAsync(std::move(job),
                            [&, i, done](absl::StatusOr<PrepareOutcome> rep) {
                              if (rep.ok()) {
                                round.prepared[i] = std::move(*rep);
                              } else {
                                errors[i] = rep.status();
                              }
                              done();
                            });
  });
  for (size_t i = 0; i < n; ++i) {
    if (!errors[i].ok()) {
      round.NoteError(NodeError(*nodes_[i], "prepare", errors[i].message()),
                      NodeErrorKindOf(errors[i]));
      return false;
    }
  }
  return true;
}

RoundProtocol::Start RoundProtocol::ChooseStart(const RoundWorkload& workload) {
  // Far enough ahead for the slowest link to carry the start message; each
  // node gets it on its own clock.
  const size_t n = nodes_.size();
  double max_rtt = 0;
  for (auto* node : nodes_) max_rtt = std::max(max_rtt, node->rtt_seconds());
  const double margin = std::max(
      kStartMarginSeconds + kStartMarginPerNodeSeconds * static_cast<double>(n),
      4 * max_rtt + 0.01);
  const int64_t margin_ns = static_cast<int64_t>(margin * 1e9);
  std::vector<int64_t> delay_ns(n);
  int64_t last_ns = 0;
  for (size_t i = 0; i < n; ++i) {
    delay_ns[i] = StartDelayNs(workload, i);
    last_ns = std::max(last_ns, delay_ns[i]);
  }
  LOG_DEBUG("%s: starting %d node(s) %s in %.3f s",
            workload.Title(RoundNameForm::kLog), static_cast<int>(n),
            last_ns > 0
                ? absl::StrFormat("staggered over %.3f s", last_ns / 1e9)
                : std::string("together"),
            margin);
  return {NowUnixNs() + margin_ns,
          Clock::now() + std::chrono::nanoseconds(margin_ns),
          std::move(delay_ns)};
}

void RoundProtocol::Transfer(Round& round, const Start& start) {
  const size_t n = nodes_.size();
  round.reports.resize(n);
  round.refused.resize(n);
  auto on_report = [&](size_t i, ReportedPhase outcome) {
    round.reports[i] = std::move(outcome.report);
    round.refused[i] = std::move(outcome.refused);
    std::string error;
    const ErrorKind kind = NodeErrorKindOf(outcome.status);
    if (!outcome.status.ok()) {
      error = NodeError(*nodes_[i], "", outcome.status.message());
    }
    if (!error.empty() && round.NoteError(error, kind)) {
      AbortAll(round.ids.run_id, error);
    }
    if (progress_) progress_->NodeDone(static_cast<int>(i));
  };
  RoundWorkload& workload = round.workload;
  fanout_.Run(n, [&](size_t i, const std::function<void()>& done) {
    const PhaseStart req{
        round.ids.run_id, round.ids.round_id,
        start.unix_ns + start.delay_ns[i] + nodes_[i]->clock_offset_ns(),
        progress_interval_};
    PhaseListener listener;
    listener.progress = [this, i](const PhaseProgress& p) {
      if (progress_) progress_->Update(static_cast<int>(i), p);
    };
    listener.action = [&workload, i](const ActionAsk& ask,
                                     RoundWorkload::ActionReplyFn reply) {
      workload.OnAction(i, ask, std::move(reply));
    };
    nodes_[i]->StartPhaseAsync(req, listener,
                               [&, i, done](ReportedPhase outcome) {
                                 on_report(i, std::move(outcome));
                                 done();
                               });
  });
}

void RoundProtocol::CheckReports(Round& round) {
  // Each report is checked before any of it is used, after the round's
  // clock stopped (reply_check.h): one that fails is dropped, and its node
  // fails, named.
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const double clock_error = nodes_[i]->rtt_seconds() / 2;
    const std::string who = nodes_[i]->Who();
    PhaseOutcome& report = round.reports[i];
    absl::Status unusable =
        round.refused[i].ok()
            ? CheckReportEnvelope(report, round.ids.round_id, clock_error, who)
            : UnusableReport(who, round.refused[i].message());
    if (unusable.ok()) {
      unusable = round.workload.CheckReport(i, report, who);
    }
    if (unusable.ok()) continue;
    report = PhaseOutcome();
    round.NoteError(NodeError(*nodes_[i], "", unusable.message()),
                    ErrorKind::kInternal);
  }
}

RoundResult RoundProtocol::Run(RoundWorkload& workload, const RoundIds& ids) {
  Round round{workload, ids, {}, {}, {}, {}, {}, {}, {}};
  workload.Begin(&round.result);
  RoundResult& result = round.result;
  // Prepare (untimed).
  if (!PrepareAll(round))
    return round.Fail(round.first_error, round.first_kind);
  if (ids.interrupted && ids.interrupted->load()) {
    return round.Fail("interrupted before the round started");
  }
  // Still untimed: the nodes' clocks again, so this round's start instant
  // and its clock-corrected times use offsets of now, not the run's start
  // (clocks drift, NTP steps them).
  ReestimateClocks(&result);
  workload.Prepared(round.prepared, &result);

  const Start start = ChooseStart(workload);
  if (progress_) {
    progress_->BeginRound(workload.Title(RoundNameForm::kProgress),
                          workload.ProgressBytes(),
                          static_cast<int>(nodes_.size()));
  }
  Transfer(round, start);
  result.transfer_seconds = SecondsSince(start.steady);
  if (progress_) progress_->EndRound();
  CheckReports(round);
  // What the nodes reported is summed up after the round's clock stops:
  // it is this tool's bookkeeping, not the workload's work.
  if (!round.first_error.empty()) {
    result.seconds = result.transfer_seconds;
    workload.Aggregate(round.reports, round.prepared, &result);
    return round.Fail(round.first_error, round.first_kind);
  }
  absl::Status finished = workload.Finish(round.reports, &result);
  result.seconds = SecondsSince(start.steady);
  const int64_t finished_unix_ns = NowUnixNs();
  workload.Aggregate(round.reports, round.prepared, &result);
  if (!finished.ok()) {
    // Unknown: the node's kind was unspecified (it could not be reached).
    return round.Fail(std::string(finished.message()),
                      absl::IsUnknown(finished) ? ErrorKind::kUnspecified
                                                : ErrorKindOf(finished));
  }
  workload.Conclude(round.prepared, finished_unix_ns, &result);
  return std::move(result);
}

}  // namespace ckpt
