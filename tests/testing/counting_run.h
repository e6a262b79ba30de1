// A test-only run-level workload made of counting rounds
// (counting_workload.h): everything a new workload brings above the round,
// registered beside the built-in ones through the same interface
// (coordinator/workload_registry.h) and run by the Coordinator as
// run.workload = counting: its run (preflight, rounds through the
// RoundProtocol, publishing, interrupts), its own sections of result.json
// (the run's and each round's, typed, its own codecs), its lines of the
// terminal summary and its section of the HTML report. Nothing outside tests/
// knows it.
#ifndef CKPTBENCH_TESTS_TESTING_COUNTING_RUN_H_
#define CKPTBENCH_TESTS_TESTING_COUNTING_RUN_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/result_section.h"
#include "coordinator/run_workload.h"
#include "coordinator/workload_registry.h"
#include "tests/testing/counting_workload.h"

namespace ckpt {

// Its members of result.json: the run's, and each of its rounds'.
inline constexpr char kCountingSection[] = "counting";
inline constexpr char kTallySection[] = "tally";

// What the counting run adds to result.json.
struct CountingSection : ResultSection {
  uint32_t rounds = 0;             // that ended ok
  uint64_t items = 0;              // counted, every node and round
  std::vector<uint64_t> per_node;  // counted by each node, over the rounds
  std::string ToJson(const RunResult& run) const override;
};

// Its codec's reader: an object of exactly those members, bounded (at most
// kMaxCountingNodes nodes), or InvalidArgument naming what is wrong, from
// `at` (its member).
inline constexpr size_t kMaxCountingNodes = 1024;
absl::StatusOr<std::shared_ptr<const ResultSection>> ReadCountingSection(
    const std::string& json, const std::string& at);

// What each of its rounds adds (at the round's head): the items its nodes
// counted and how many nodes reported.
struct TallySection : ResultSection {
  uint64_t items = 0;
  uint32_t nodes = 0;
  std::string ToJson(const RunResult& run) const override;
};
// Its codec (placed kRoundHead); the reader takes exactly those members.
ResultSectionCodec TallySectionCodec();

class CountingRun : public RunWorkload {
 public:
  // `rounds` counting rounds; after round `interrupt_after` (0: none) the
  // run interrupts itself, as a signal would.
  CountingRun(int rounds, CountingSpec spec, int interrupt_after)
      : rounds_(rounds), spec_(spec), interrupt_after_(interrupt_after) {}
  absl::Status Preflight(RunContext& ctx, RunResult* result) override;
  absl::Status Run(RunContext& ctx, RunResult* result) override;
  std::vector<size_t> published;  // Snapshot's rounds after each

 private:
  const int rounds_;
  const CountingSpec spec_;
  const int interrupt_after_;
};

// The registration: its run, summary, result sections and report section.
// `made` (optional) sees each run the registry makes.
RunWorkloadEntry CountingRunEntry(
    int rounds, CountingSpec spec, int interrupt_after = 0,
    std::function<void(CountingRun*)> made = nullptr);

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_COUNTING_RUN_H_
