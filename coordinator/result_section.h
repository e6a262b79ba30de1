// A workload's own section of result.json: a member of the run's object,
// or of each of its rounds' objects, named by the workload, holding a type
// of the workload's own, written and read by the workload's own codec. The
// workload registers the codec with its name (coordinator/
// workload_registry.h: RunWorkloadEntry::results, ::round_result);
// ResultToJson writes every section a RunResult and its RoundResults hold,
// each at its place (ResultPlace), ResultFromJson reads the members its
// registry has a codec for, and a member no registered codec reads is
// carried through unread (coordinator/result_foreign.h).
#ifndef CKPTBENCH_COORDINATOR_RESULT_SECTION_H_
#define CKPTBENCH_COORDINATOR_RESULT_SECTION_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace ckpt {

struct RunResult;  // results.h

class ResultSection {
 public:
  virtual ~ResultSection() = default;
  // The section as the text of one JSON object, written within `run`, the
  // result it is part of (a section whose figures are derived from the
  // run's other parts reads them there: the checkpoint's goodput, from its
  // rounds); "" leaves it out of the file. Text, so a workload may use
  // any JSON writer; it must not throw on bytes that are not UTF-8 (a host's
  // name, a path): the built-in sections dump with SectionText
  // (coordinator/result_fields.h), which escapes them.
  virtual std::string ToJson(const RunResult& run) const = 0;
};

// By member name. Shared and immutable: a RunResult is copied (a snapshot
// per round), its sections are not (a section is made whole, then added).
using ResultSections =
    std::map<std::string, std::shared_ptr<const ResultSection>, std::less<>>;

// Where a section goes: in the run's object, or in a round's.
enum class ResultPlace {
  // After the members every result.json has that describe the run (its
  // configuration, plan, clocks), before its rounds: what the run was about
  // (a resharded restore's plan, a dataset, an accelerator search).
  kBeforeRounds,
  // After every member of the run's (its rounds, summary): the default (the
  // checkpoint's goodput).
  kAtEnd,
  // A round's section (RoundResult::sections): at the round's head, after
  // its workload's name and before its phase: what the round was (a
  // dataload's epoch), in the order the workloads were registered in.
  kRoundHead,
  // A round's section after its figures (its flags, a load's coverage and
  // page cache), before its clock: what followed the round's transfer (a
  // save's time to visible).
  kRoundFigures,
};

// Whether a section at `place` is a round's (else the run's).
inline bool IsRoundPlace(ResultPlace place) {
  return place == ResultPlace::kRoundHead ||
         place == ResultPlace::kRoundFigures;
}

struct ResultSectionCodec {
  // Its member of the run's object (of a round's, at a round's place); ""
  // when the workload has no section there.
  std::string member;
  // The section back from its JSON text (one object, bounded by the file's
  // own bound), found at `at` (its member's path in the file, e.g.
  // "dataset"); InvalidArgument saying what is wrong in it, from `at` (the
  // caller adds the file's name): "dataset.objects: expected ...".
  std::function<absl::StatusOr<std::shared_ptr<const ResultSection>>(
      const std::string& json, const std::string& at)>
      read;
  // Sections are written at their place in the order their workloads (and
  // each workload's sections) were registered in; a section the writing
  // registry has no codec for goes at the end, by member (a round's: at the
  // round's end).
  ResultPlace place = ResultPlace::kAtEnd;
};

// The section under `member` as the workload's type T, or null when there
// is none or it is of another type.
template <typename T>
const T* SectionAs(const ResultSections& sections, std::string_view member) {
  auto it = sections.find(member);
  return it == sections.end() ? nullptr
                              : dynamic_cast<const T*>(it->second.get());
}

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_RESULT_SECTION_H_
