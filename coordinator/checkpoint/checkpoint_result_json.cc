// The checkpoint's sections of result.json, both ways: a resharded
// restore's "reshard".
#include "coordinator/checkpoint/checkpoint_result_json.h"

namespace ckpt {

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

std::string ReshardResult::ToJson() const { return ReshardJson(*this).dump(); }

ResultSectionCodec ReshardSectionCodec() {
  return SectionCodecOf<ReshardResult>(kReshardSection,
                                       ResultPlace::kBeforeRounds, ReadReshard);
}

}  // namespace ckpt
