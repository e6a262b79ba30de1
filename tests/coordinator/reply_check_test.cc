// CheckNodeReply, the one check of a node's reply the fuzz target drives:
// each of its parts is reached through it.
#include "coordinator/reply_check.h"

#include <gtest/gtest.h>

#include <string>

namespace ckpt {
namespace {

TEST(CheckNodeReply, TypeThenTheValuesOfListingsAndPhaseReports) {
  const std::string who = "node 0 (h)";
  v1::NodeMessage ping;
  ping.mutable_ping();
  EXPECT_TRUE(CheckNodeReply(ping, v1::NodeMessage::kPing, who).ok());
  auto wrong = CheckNodeReply(ping, v1::NodeMessage::kPrepare, who);
  EXPECT_NE(wrong.message().find("answered a prepare call with ping"),
            std::string::npos)
      << wrong;

  v1::NodeMessage listing;
  listing.mutable_inspect()->add_steps()->set_step(3);
  EXPECT_TRUE(CheckNodeReply(listing, v1::NodeMessage::kInspect, who).ok());
  listing.mutable_inspect()->add_steps()->set_step(0);
  EXPECT_FALSE(CheckNodeReply(listing, v1::NodeMessage::kInspect, who).ok());

  PhaseExpectation expect;
  expect.round_id = 4;
  expect.ranks[1] = {10, 10, {{"__1_0.distcp", 10}}, {{0, 1}}};
  v1::NodeMessage report;
  auto* r = report.mutable_phase_report();
  r->set_round_id(4);
  auto* rank = r->add_ranks();
  rank->set_rank(1);
  rank->set_bytes(10);
  EXPECT_TRUE(
      CheckNodeReply(report, v1::NodeMessage::kPhaseReport, who, &expect).ok());
  rank->set_done_seconds(-1);
  EXPECT_FALSE(
      CheckNodeReply(report, v1::NodeMessage::kPhaseReport, who, &expect).ok());
  // Without an expectation only its type is judged.
  EXPECT_TRUE(CheckNodeReply(report, v1::NodeMessage::kPhaseReport, who).ok());
}

}  // namespace
}  // namespace ckpt
