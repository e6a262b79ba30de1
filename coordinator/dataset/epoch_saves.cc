#include "coordinator/dataset/epoch_saves.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/clock.h"
#include "common/dataset/dataset_options.h"
#include "common/log.h"
#include "common/step_layout.h"
#include "wire/dataload_report_codec.h"

namespace ckpt {
namespace {

using Clock = std::chrono::steady_clock;

// The configuration the saves' rounds see: no time to visible, and the
// training between saves the emulated accelerators' N batches (an async
// save whose persisting takes longer holds the next one).
Config ForEpochSaves(Config c) {
  CheckpointOf(c).visible_timeout = 0;
  CheckpointOf(c).interval =
      DataloadOf(c).checkpoint_every * DataloadOf(c).compute_time;
  return c;
}

}  // namespace

struct EpochSaves::Save {
  uint32_t k = 0;
  RoundSpec spec;
  std::unique_ptr<RoundWorkload> round;
  RoundResult result;
  std::vector<Waiting> begun, saved;
  std::vector<char> asked;  // per node: 0, 1 (started), 2 (saved)
  std::vector<PhaseOutcome> reports;
  std::vector<PrepareOutcome> prepared;  // what each node's prepare found
  absl::Status refused;                  // a report that could not be held
  Clock::time_point started;
  bool began = false, committing = false, committed = false;
};

EpochSaves::EpochSaves(const Config& config, const CheckpointPlan& plan,
                       std::vector<NodeClient*> nodes,
                       EpochSavesContext context, uint64_t first_step)
    : config_(ForEpochSaves(config)),
      nodes_(nodes.size()),
      node_list_(nodes),
      runner_(config_, plan, std::move(nodes), nullptr),
      context_(std::move(context)),
      next_step_(first_step),
      index_(context_.index_base),
      finished_(nodes_, 0),
      expected_(nodes_) {}

EpochSaves::~EpochSaves() { (void)TakeRounds(); }

EpochCheckpointJob EpochSaves::JobFor(size_t node) {
  std::lock_guard<std::mutex> lock(mu_);  // for several nodes at once
  const RoundSpec spec = context_.spec(next_step_);
  std::unique_ptr<RoundWorkload> round = runner_.NewRound(spec);
  PhaseJob job = round->BuildPrepare(node);
  job.run_id = spec.run_id;
  job.round_id = spec.round_id;
  // What this node's saves may report: the same job for every step.
  expected_[node] = ExpectPhase(job, 0);
  EpochCheckpointJob c;
  c.every_batches = static_cast<uint32_t>(
      DataloadOf(std::as_const(config_)).checkpoint_every);
  c.first_step = next_step_;
  c.first_step_uri = job.step_uri;
  c.save = std::move(job);
  return c;
}

void EpochSaves::Answer(const ActionAsk& ask, const Reply& reply,
                        const EpochSaveAnswer& answer) {
  reply({ask.round_id, ask.action_id, absl::OkStatus(),
         EncodeEpochSaveAnswer(answer)});
}

void EpochSaves::Refuse(const ActionAsk& ask, const Reply& reply,
                        absl::Status s) {
  reply({ask.round_id, ask.action_id, std::move(s), {}});
}

void EpochSaves::OnAsk(size_t node, const ActionAsk& ask, Reply reply) {
  absl::StatusOr<EpochSaveAsk> a = DecodeEpochSaveAsk(ask.payload);
  if (!a.ok() || node >= nodes_) {
    Refuse(ask, reply,
           absl::InvalidArgumentError("an ask about a save that does not "
                                      "parse"));
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) {
    Refuse(ask, reply, absl::FailedPreconditionError("the epoch is over"));
    return;
  }
  // The save a node may start next: the first, or the one after the last
  // that committed.
  const uint32_t next = static_cast<uint32_t>(committed_) + 1;
  const char* what = a->finished ? "finished"
                     : a->saved  ? "saved"
                                 : "the start";
  const uint32_t k = a->save;
  bool in_turn;
  if (a->finished) {
    in_turn = k == next && OnFinished(node, k, ask, reply);
  } else if (!a->saved) {
    in_turn = k == next && OnStart(node, k, ask, reply);
  } else {
    in_turn = OnSaved(node, *a, ask, reply);
  }
  if (!in_turn) {
    Refuse(ask, reply,
           absl::FailedPreconditionError(absl::StrCat(
               node_list_[node]->Who(), " asked ", what, " of checkpoint ", k,
               " out of turn (the epoch's saves go one after another, "
               "each node asking once)")));
  }
}

EpochSaveAnswer EpochSaves::Skip() {
  EpochSaveAnswer skip;
  skip.skip = true;
  return skip;
}

bool EpochSaves::OnFinished(size_t node, uint32_t k, const ActionAsk& ask,
                            Reply& reply) {
  if (finished_[node]) return false;
  finished_[node] = 1;
  if (finished_at_ == 0) finished_at_ = k;
  Answer(ask, reply, {});
  // Nodes waiting at this save: no node can take it now.
  if (!saves_.empty() && !saves_.back()->began) {
    for (auto& w : saves_.back()->begun) Answer(w.ask, w.reply, Skip());
    saves_.back()->begun.clear();
  }
  return true;
}

bool EpochSaves::OnStart(size_t node, uint32_t k, const ActionAsk& ask,
                         Reply& reply) {
  if (finished_at_ != 0) {
    Answer(ask, reply, Skip());
    return true;
  }
  if (saves_.empty() || saves_.back()->k != k) {
    auto& fresh = saves_.emplace_back(std::make_unique<Save>());
    fresh->k = k;
    fresh->reports.resize(nodes_);
    fresh->prepared.resize(nodes_);
    fresh->asked.assign(nodes_, 0);
  }
  Save& s = *saves_.back();
  if (s.began || s.asked[node] != 0) return false;
  s.asked[node] = 1;
  s.begun.push_back({node, ask, std::move(reply)});
  if (s.begun.size() == nodes_) Begin(s);
  return true;
}

bool EpochSaves::OnSaved(size_t node, EpochSaveAsk& a, const ActionAsk& ask,
                         Reply& reply) {
  Save* found = nullptr;
  for (auto& p : saves_) {
    if (p->k == a.save) found = p.get();
  }
  if (found == nullptr || !found->began || found->committing ||
      found->asked[node] != 1) {
    return false;
  }
  Save& s = *found;
  s.asked[node] = 2;
  if (!a.unheld.ok() && s.refused.ok()) {
    s.refused = absl::DataLossError(
        absl::StrCat(node_list_[node]->Who(), " sent ", a.unheld.message()));
  }
  s.reports[node] = std::move(a.report);
  if (a.prepared.has_value()) s.prepared[node] = *std::move(a.prepared);
  s.saved.push_back({node, ask, std::move(reply)});
  if (s.saved.size() == nodes_) {
    s.committing = true;  // no ask touches it from here on
    Save* p = &s;
    helpers_.emplace_back([this, p] { Commit(*p); });
  }
  return true;
}

void EpochSaves::Begin(Save& s) {
  s.began = true;
  s.spec = context_.spec(next_step_);
  s.spec.index = ++index_;
  s.round = runner_.NewRound(s.spec, expected_);
  s.round->Begin(&s.result);
  s.started = Clock::now();
  LOG_INFO("checkpoint %d of the epoch: %s", static_cast<int>(s.k),
           StepDirName(s.spec.step));
  for (auto& w : s.begun) {
    EpochSaveAnswer answer;
    answer.step = s.spec.step;
    answer.step_uri = ForNode(s.spec.step_uri, node_list_[w.node]->index());
    Answer(w.ask, w.reply, answer);
  }
  s.begun.clear();
  // The next save's step, claimed while this one runs.
  const uint64_t after = s.spec.step + 1;
  next_claimed_ = false;
  claiming_ = std::thread([this, after] {
    auto claimed = context_.claim(after);
    std::lock_guard<std::mutex> lock(mu_);
    if (claimed.ok()) {
      next_step_ = *claimed;
      next_claimed_ = true;
    } else {
      claimed_ = claimed.status();
    }
  });
}

void EpochSaves::Commit(Save& s) {
  if (claiming_.joinable()) claiming_.join();
  const double reported =
      std::chrono::duration<double>(Clock::now() - s.started).count();
  absl::Status failed = s.refused;
  for (size_t i = 0; i < nodes_ && failed.ok(); ++i) {
    failed = s.round->CheckReport(i, s.reports[i], node_list_[i]->Who());
  }
  if (failed.ok()) failed = s.round->Finish(s.reports, &s.result);
  s.result.transfer_seconds = reported;
  s.result.seconds =
      std::chrono::duration<double>(Clock::now() - s.started).count();
  s.round->Aggregate(s.reports, s.prepared, &s.result);
  std::lock_guard<std::mutex> lock(mu_);
  if (failed.ok() && !claimed_.ok()) failed = claimed_;
  if (!failed.ok()) {
    s.result.status = RunStatus::kFailed;
    s.result.error = std::string(failed.message());
    for (auto& w : s.saved) Refuse(w.ask, w.reply, failed);
  } else {
    s.committed = true;
    ++committed_;
    s.round->Conclude(s.prepared, NowUnixNs(), &s.result);
    const std::string next_uri = context_.step_uri(next_step_);
    for (auto& w : s.saved) {
      EpochSaveAnswer answer;
      answer.step = s.spec.step;
      answer.next_step = next_step_;
      answer.next_step_uri = ForNode(next_uri, node_list_[w.node]->index());
      Answer(w.ask, w.reply, answer);
    }
  }
  s.saved.clear();
  rounds_.push_back(s.result);
}

std::vector<RoundResult> EpochSaves::TakeRounds() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;  // a late ask adds no helper
  }
  // The helpers first: a commit joins the claim.
  for (auto& t : helpers_) t.join();
  helpers_.clear();
  if (claiming_.joinable()) claiming_.join();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<RoundResult> out = std::move(rounds_);
  rounds_.clear();
  std::stable_sort(out.begin(), out.end(),
                   [](const RoundResult& a, const RoundResult& b) {
                     return a.step < b.step;
                   });
  return out;
}

bool EpochSaves::SaveStepIs(uint32_t k, uint64_t step) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& s : saves_) {
    if (s->k == k) return s->began && s->spec.step == step;
  }
  return false;
}

uint64_t EpochSaves::uncommitted_step() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& s : saves_) {
    if (s->began && !s->committed) return s->spec.step;
  }
  return 0;
}

}  // namespace ckpt
