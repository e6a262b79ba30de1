#include "tests/testing/counting_run.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/round/round_protocol.h"
#include "report/draw/svg.h"

namespace ckpt {
namespace {

using CountingJson = nlohmann::json;

// The section of the rounds that ended ok: each node's count summed.
std::shared_ptr<const CountingSection> SectionOf(const RunResult& r) {
  auto s = std::make_shared<CountingSection>();
  for (const RoundResult& round : r.rounds) {
    if (round.workload != kCountingWorkload || round.status != RunStatus::kOk) {
      continue;
    }
    ++s->rounds;
    for (const NodeResult& n : round.nodes) {
      const size_t i = static_cast<size_t>(n.node);
      if (s->per_node.size() <= i) s->per_node.resize(i + 1);
      s->per_node[i] += n.bytes;  // a node's count (CountingRound)
      s->items += n.bytes;
    }
  }
  return s;
}

WorkloadSummary Summary() {
  WorkloadSummary s;
  s.head = [](const RunResult& r, std::string* out) {
    const auto* c = SectionAs<CountingSection>(r.sections, kCountingSection);
    absl::StrAppendFormat(out, "\nckptbench %s: counting on %d node(s)\n",
                          r.status, c != nullptr ? c->per_node.size() : 0);
  };
  s.round_name = [](const RoundResult& r) {
    return absl::StrCat("tally ", r.index);
  };
  s.round_kind = [](const RoundResult&) { return std::string("tally"); };
  s.plan_row = [](const RunResult& r) {
    return std::make_optional(
        std::make_pair(std::string("first run's tally"),
                       absl::StrCat(r.rounds.size(), " round(s) counted")));
  };
  s.tables = [](const RunResult& r, std::string* out) {
    const auto* c = SectionAs<CountingSection>(r.sections, kCountingSection);
    if (c == nullptr) return;
    absl::StrAppendFormat(out,
                          "counted: %d item(s) in %d round(s); per node %s\n",
                          c->items, c->rounds, absl::StrJoin(c->per_node, " "));
  };
  return s;
}

std::string Report(const ReportInput& input) {
  std::string rows;
  for (const ReportRun& run : input.runs) {
    const auto* c =
        SectionAs<CountingSection>(run.result->sections, kCountingSection);
    if (c == nullptr) continue;
    absl::StrAppend(&rows, "<tr><td>", HtmlEscape(run.label), "</td><td>",
                    c->rounds, "</td><td>", c->items, "</td><td>",
                    absl::StrJoin(c->per_node, " "), "</td></tr>\n");
  }
  if (rows.empty()) return "";
  return absl::StrCat(
      "<section id=\"counting\"><h2>Counting</h2>\n<table><tr><th>run</th>"
      "<th>rounds</th><th>items</th><th>per node</th></tr>\n",
      rows, "</table></section>\n");
}

}  // namespace

std::string CountingSection::ToJson(const RunResult&) const {
  return CountingJson{
      {"rounds", rounds}, {"items", items}, {"per_node", per_node}}
      .dump();
}

absl::StatusOr<std::shared_ptr<const ResultSection>> ReadCountingSection(
    const std::string& json, const std::string& at) {
  auto bad = [&at](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(at, ": expected ", what));
  };
  const CountingJson j =
      CountingJson::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return bad("an object");
  for (const auto& [key, value] : j.items()) {
    if (key != "rounds" && key != "items" && key != "per_node") {
      return bad(absl::StrCat("rounds, items and per_node only, found '",
                              EscapeForTerminal(key.substr(0, 64)), "'"));
    }
  }
  auto s = std::make_shared<CountingSection>();
  const auto rounds = j.find("rounds");
  const auto items = j.find("items");
  const auto per_node = j.find("per_node");
  if (rounds == j.end() || !rounds->is_number_unsigned() ||
      rounds->get<uint64_t>() > UINT32_MAX) {
    return bad("rounds, a count");
  }
  if (items == j.end() || !items->is_number_unsigned()) {
    return bad("items, a count");
  }
  if (per_node == j.end() || !per_node->is_array() ||
      per_node->size() > kMaxCountingNodes) {
    return bad(absl::StrCat("per_node, a list of at most ", kMaxCountingNodes,
                            " counts"));
  }
  s->rounds = rounds->get<uint32_t>();
  s->items = items->get<uint64_t>();
  uint64_t sum = 0;
  for (const CountingJson& n : *per_node) {
    if (!n.is_number_unsigned()) return bad("per_node, a list of counts");
    s->per_node.push_back(n.get<uint64_t>());
    sum += s->per_node.back();
  }
  if (sum != s->items) {
    return bad(
        absl::StrCat("items ", s->items, " to be per_node's sum, ", sum));
  }
  return std::shared_ptr<const ResultSection>(std::move(s));
}

std::string TallySection::ToJson(const RunResult&) const {
  return CountingJson{{"items", items}, {"nodes", nodes}}.dump();
}

ResultSectionCodec TallySectionCodec() {
  ResultSectionCodec codec;
  codec.member = kTallySection;
  codec.place = ResultPlace::kRoundHead;
  codec.read = [](const std::string& json, const std::string& at)
      -> absl::StatusOr<std::shared_ptr<const ResultSection>> {
    const CountingJson j =
        CountingJson::parse(json, nullptr, /*allow_exceptions=*/false);
    const bool two = j.is_object() && j.size() == 2;
    const auto items = two ? j.find("items") : j.end();
    const auto nodes = two ? j.find("nodes") : j.end();
    if (items == j.end() || nodes == j.end() || !items->is_number_unsigned() ||
        !nodes->is_number_unsigned() || nodes->get<uint64_t>() > UINT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": expected items and nodes, counts"));
    }
    auto s = std::make_shared<TallySection>();
    s->items = items->get<uint64_t>();
    s->nodes = nodes->get<uint32_t>();
    return std::shared_ptr<const ResultSection>(std::move(s));
  };
  return codec;
}

absl::Status CountingRun::Preflight(RunContext& ctx, RunResult* result) {
  result->notes.push_back(
      absl::StrCat("counting on ", ctx.nodes().size(), " nodes"));
  return absl::OkStatus();
}

absl::Status CountingRun::Run(RunContext& ctx, RunResult* result) {
  RoundProtocol protocol(ctx.nodes(), ctx.progress(), 0.05);
  for (int i = 1; i <= rounds_ && !ctx.interrupted(); ++i) {
    CountingRound round(ctx.nodes().size(), spec_, i);
    result->rounds.push_back(protocol.Run(round, ctx.NextRound()));
    RoundResult& r = result->rounds.back();
    auto tally = std::make_shared<TallySection>();
    for (const NodeResult& n : r.nodes) tally->items += n.bytes;
    tally->nodes = static_cast<uint32_t>(r.nodes.size());
    r.sections[kTallySection] = std::move(tally);
    FlagShortPhase(&result->rounds.back(), "more items");
    result->sections[kCountingSection] = SectionOf(*result);
    ctx.Publish(result);
    if (r.status != RunStatus::kOk) return absl::AbortedError(r.error);
    published.push_back(ctx.Snapshot().rounds.size());
    if (i == interrupt_after_) ctx.Interrupt("the test has seen enough");
  }
  return absl::OkStatus();
}

RunWorkloadEntry CountingRunEntry(int rounds, CountingSpec spec,
                                  int interrupt_after,
                                  std::function<void(CountingRun*)> made) {
  RunWorkloadEntry entry(
      kCountingWorkload,
      [=]() -> std::unique_ptr<RunWorkload> {
        auto run = std::make_unique<CountingRun>(rounds, spec, interrupt_after);
        if (made) made(run.get());
        return run;
      },
      Summary(), {ResultSectionCodec{kCountingSection, ReadCountingSection}},
      Report);
  entry.round_result = TallySectionCodec();
  return entry;
}

}  // namespace ckpt
