// RunContext (coordinator/run_context.h): the run's ids, its nodes,
// publishing its results and its interruption; the listings and the steps
// are in run_context_listing.cc and run_context_steps.cc.
#include "coordinator/run_context.h"

#include "absl/strings/str_cat.h"
#include "common/step_layout.h"
#include "wire/backend_codec.h"

namespace ckpt {

RunContext::RunContext(const Config& config, std::vector<NodeClient*> nodes,
                       ProgressPrinter* progress, std::string run_id)
    : config_(config),
      nodes_(std::move(nodes)),
      progress_(progress),
      run_id_(std::move(run_id)),
      backend_(BackendOptionsOf(config)) {}

RoundIds RunContext::NextRound() {
  return RoundIds{run_id_, next_round_id_++, &interrupted_};
}

void RunContext::ReorderNodes(const std::vector<size_t>& order) {
  std::vector<NodeClient*> nodes;
  for (size_t j : order) nodes.push_back(nodes_[j]);
  std::lock_guard<std::mutex> lock(interrupt_mu_);  // Interrupt reads them
  nodes_ = std::move(nodes);
}

void RunContext::Interrupt(const std::string& reason) {
  std::vector<NodeClient*> nodes;
  {
    std::lock_guard<std::mutex> lock(interrupt_mu_);
    interrupt_reason_ = reason;
    nodes = nodes_;  // ReorderNodes may reorder them meanwhile
  }
  interrupted_ = true;
  for (auto* n : nodes) (void)n->Abort(run_id_, reason);
}

std::string RunContext::interrupt_reason() const {
  std::lock_guard<std::mutex> lock(interrupt_mu_);
  return interrupt_reason_;
}

void RunContext::NoteListings(RunResult* result) const {
  // The first few by name; thousands of them would bury the summary.
  constexpr size_t kNamed = 10;
  auto note = [&](const std::set<std::string>& paths, const auto& say) {
    size_t n = 0;
    for (const auto& p : paths) {
      if (n++ == kNamed) {
        result->notes.push_back(absl::StrCat("... and ", paths.size() - kNamed,
                                             " more like the above"));
        break;
      }
      result->notes.push_back(say(p));
    }
  };
  note(ignored_steps_, [](const std::string& p) {
    return absl::StrCat("ignored ", p, ": a step number past ", kMaxStep,
                        ", the largest ckptbench writes (exact in JSON); not "
                        "one of its steps, left alone");
  });
  note(partial_steps_, [](const std::string& p) {
    return absl::StrCat(
        p,
        " holds no .metadata: a save in progress, or one a run killed "
        "mid-save left behind; left alone. If no run is writing it, remove it "
        "(on S3 abort its uploads first: ckptbench uploads ",
        p, " --abort)");
  });
}

void RunContext::Publish(RunResult* result) {
  // Each round is copied once, when it is first published (rounds carry
  // every file's record: copying them all after every round added up to
  // the square of the rounds); the rest is small and copied whole.
  std::vector<RoundResult> rounds;
  rounds.swap(result->rounds);
  RunResult head = *result;
  result->rounds.swap(rounds);
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  std::vector<RoundResult> published = std::move(snapshot_.rounds);
  for (size_t k = published.size(); k < result->rounds.size(); ++k) {
    published.push_back(result->rounds[k]);
  }
  snapshot_ = std::move(head);
  snapshot_.rounds = std::move(published);
}

RunResult RunContext::Snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  return snapshot_;
}

}  // namespace ckpt
