// A save's time to visible with every field set to a value of its own, as
// tests of result.json write and read it back.
#ifndef CKPTBENCH_TESTS_TESTING_VISIBILITY_FIXTURE_H_
#define CKPTBENCH_TESTS_TESTING_VISIBILITY_FIXTURE_H_

#include "coordinator/checkpoint/checkpoint_results.h"

namespace ckpt {

// Visible to node 1 ("h1") 0.5 s after the commit, on the third poll.
inline Visibility SeenOnTheThirdPoll() {
  Visibility seen;
  seen.visible = true;
  seen.node = 1;
  seen.host = "h1";
  seen.seconds = 0.5;
  seen.poll_seconds = 0.25;
  seen.polls = 3;
  seen.last_poll_seconds = 0.0625;
  return seen;
}

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_VISIBILITY_FIXTURE_H_
