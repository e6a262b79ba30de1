// The checkpoint's sections of result.json, both ways: a resharded
// restore's "reshard", the run's "goodput" and a save's "time_to_visible".
#include "coordinator/checkpoint/checkpoint_result_json.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/result_fields.h"

namespace ckpt {
namespace {

using nlohmann::ordered_json;

ordered_json ReshardJson(const ReshardResult& rs) {
  ordered_json ranks = ordered_json::array();
  for (const auto& k : rs.ranks) {
    ranks.push_back({{"rank", k.rank},
                     {"node", k.node},
                     {"bytes_needed", k.bytes_needed},
                     {"bytes_read", k.bytes_read},
                     {"files", k.files},
                     {"reads", k.reads},
                     {"from_ranks", k.from_ranks}});
  }
  return {{"reads", rs.mode},
          {"from_world", rs.from_world},
          {"to_world", rs.to_world},
          {"from_layout", rs.from_layout},
          {"to_layout", rs.to_layout},
          {"bytes_needed", rs.bytes_needed},
          {"bytes_read", rs.bytes_read},
          {"read_amplification", rs.read_amplification},
          {"planning_seconds", rs.planning_seconds},
          {"verification",
           "every byte read regenerated from the writer's (seed, "
           "step, rank, file, offset) and compared"},
          {"ranks", ranks}};
}

void ReadReshard(const Fields& f, ReshardResult* rs) {
  f.Get("reads", &rs->mode);
  f.Get("from_world", &rs->from_world);
  f.Get("to_world", &rs->to_world);
  f.Get("from_layout", &rs->from_layout);
  f.Get("to_layout", &rs->to_layout);
  f.Get("bytes_needed", &rs->bytes_needed);
  f.Get("bytes_read", &rs->bytes_read);
  f.Get("read_amplification", &rs->read_amplification);
  f.Get("planning_seconds", &rs->planning_seconds);
  f.Each("ranks", [&](const Fields& k) {
    ReshardRankResult& rank = rs->ranks.emplace_back();
    k.Get("rank", &rank.rank);
    k.Get("node", &rank.node);
    k.Get("bytes_needed", &rank.bytes_needed);
    k.Get("bytes_read", &rank.bytes_read);
    k.Get("files", &rank.files);
    k.Get("reads", &rank.reads);
    k.Get("from_ranks", &rank.from_ranks);
  });
}

ordered_json PointJson(const GoodputPoint& p) {
  return {{"interval_seconds", p.interval_seconds},
          {"cost_seconds", p.cost_seconds},
          {"waste", p.waste},
          {"goodput", p.goodput}};
}

ordered_json GoodputJson(const GoodputResult& g) {
  ordered_json curve = ordered_json::array();
  for (const auto& p : g.curve) curve.push_back(PointJson(p));
  ordered_json j = {{"mttf_seconds", g.in.mttf_seconds},
                    {"checkpoint_cost_seconds", g.in.delta_seconds},
                    {"checkpoint_cost_source", g.delta_source},
                    {"persist_seconds", g.in.persist_seconds},
                    {"restart_seconds", g.in.restart_seconds},
                    {"restart_source", g.restart_source},
                    {"interval_seconds", g.in.interval_seconds},
                    {"young_interval_seconds", g.young_seconds},
                    {"daly_interval_seconds", g.daly_seconds},
                    {"at_optimum", PointJson(g.at_optimum)},
                    {"at_daly", PointJson(g.at_daly)},
                    {"curve", curve}};
  if (g.in.interval_seconds > 0) j["at_interval"] = PointJson(g.at_interval);
  return j;
}

// Only what goodput is computed at: the rest is derived again.
void ReadGoodputAt(const Fields& f, GoodputAt* at) {
  f.Get("mttf_seconds", &at->mttf_seconds);
  f.Get("interval_seconds", &at->interval_seconds);
}

ordered_json VisibleJson(const Visibility& v) {
  return {
      {"visible", v.visible},     {"seconds", v.seconds},
      {"node", v.node},           {"host", v.host},
      {"same_node", v.same_node}, {"poll_seconds", v.poll_seconds},
      {"polls", v.polls},         {"last_poll_seconds", v.last_poll_seconds},
      {"lacked", v.lacked}};
}

void ReadVisible(const Fields& f, Visibility* v) {
  f.Get("visible", &v->visible);
  f.Get("seconds", &v->seconds);
  f.Get("node", &v->node);
  f.Get("host", &v->host);
  f.Get("same_node", &v->same_node);
  f.Get("poll_seconds", &v->poll_seconds);
  f.Get("polls", &v->polls);
  f.Get("last_poll_seconds", &v->last_poll_seconds);
  f.Get("lacked", &v->lacked);
}

}  // namespace

std::string ReshardResult::ToJson(const RunResult&) const {
  return SectionText(ReshardJson(*this));
}

ResultSectionCodec ReshardSectionCodec() {
  return SectionCodecOf<ReshardResult>(kReshardSection,
                                       ResultPlace::kBeforeRounds, ReadReshard);
}

std::string GoodputAt::ToJson(const RunResult& run) const {
  const std::optional<GoodputResult> g = GoodputOf(run, *this);
  return g ? SectionText(GoodputJson(*g)) : std::string();
}

ResultSectionCodec GoodputSectionCodec() {
  return SectionCodecOf<GoodputAt>(kGoodputSection, ResultPlace::kAtEnd,
                                   ReadGoodputAt);
}

std::string Visibility::ToJson(const RunResult&) const {
  return SectionText(VisibleJson(*this));
}

ResultSectionCodec VisibilitySectionCodec() {
  return SectionCodecOf<Visibility>(kVisibleSection, ResultPlace::kRoundFigures,
                                    ReadVisible);
}

}  // namespace ckpt
