// SessionServer, RemoteNode and the node's side (RunNodeSession) in one
// process over loopback gRPC: registration rules, commands carried on the
// Session stream, shutdown, and the node's connect timeout.
#include "coordinator/session_server.h"

#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/config.h"
#include "common/protocol_version.h"
#include "node/node_session.h"
#include "node/storage/memory_storage.h"
#include "tests/testing/lying_node.h"

namespace ckpt {
namespace {

constexpr char kToken[] = "tok-3f9a1c";

std::unique_ptr<SessionServer> StartServer(int nodes) {
  SessionServerOptions o;
  o.listen = "127.0.0.1:0";
  o.num_nodes = nodes;
  o.token = kToken;
  o.run_id = "run-s";
  auto s = SessionServer::Start(o);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

NodeSessionOptions NodeOptions(const SessionServer& server, int index) {
  NodeSessionOptions o;
  o.coordinator = "127.0.0.1:" + std::to_string(server.port());
  o.node_index = index;
  o.host = "host-" + std::to_string(index);
  o.token = kToken;
  o.credentials = grpc::InsecureChannelCredentials();
  o.connect_timeout = 10;
  return o;
}

std::future<absl::Status> Join(const NodeSessionOptions& o) {
  return std::async(std::launch::async, [o] { return RunNodeSession(o); });
}

TEST(SessionServer, NodesRegisterServeCommandsOnTheStreamAndAreShutDown) {
  auto server = StartServer(2);
  ASSERT_NE(server, nullptr);
  auto n0 = Join(NodeOptions(*server, 0));
  auto n1 = Join(NodeOptions(*server, 1));
  auto nodes = server->WaitForNodes(20);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[1]->index(), 1);
  EXPECT_EQ((*nodes)[1]->host(), "host-1");
  // A command and its reply cross the stream: a ping carries the node's
  // clock (the same host: within a second of ours).
  auto pong = (*nodes)[0]->Ping(0);
  ASSERT_TRUE(pong.ok()) << pong.status();
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  EXPECT_LT(std::llabs(*pong - now), 1'000'000'000);
  // A node-side refusal comes back with the node's kind, told apart from a
  // transport failure.
  InspectJob inspect;
  inspect.steps_uri = "mem://b/checkpoints";
  inspect.want_metadata = true;
  inspect.metadata_step = 7;
  auto listing = (*nodes)[1]->Inspect(inspect);
  ASSERT_FALSE(listing.ok());
  EXPECT_FALSE(listing.status().message().empty());
  EXPECT_TRUE(IsNodeError(listing.status())) << listing.status();
  EXPECT_EQ(NodeErrorKindOf(listing.status()), ErrorKind::kNotFound);
  EXPECT_TRUE(absl::IsNotFound(listing.status())) << listing.status();
  server->Shutdown(ExitCode::kOk, "done");
  ASSERT_EQ(n0.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  ASSERT_EQ(n1.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_TRUE(n0.get().ok());
  EXPECT_TRUE(n1.get().ok());
}

TEST(SessionServer, AFailedRunEndsTheNodesWithAborted) {
  auto server = StartServer(1);
  ASSERT_NE(server, nullptr);
  auto n0 = Join(NodeOptions(*server, 0));
  ASSERT_TRUE(server->WaitForNodes(20).ok());
  server->Shutdown(ExitCode::kFailed, "round 2 failed");
  ASSERT_EQ(n0.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  absl::Status s = n0.get();
  EXPECT_TRUE(absl::IsAborted(s)) << s;
}

// The node exits with the coordinator's exit status (node_command.cc maps
// each status code to one): input to fix ends it with FailedPrecondition
// (2), an interrupted run or a lost node with Unavailable (3), so that a
// Job's podFailurePolicy sees one verdict on every pod.
TEST(SessionServer, HowTheRunEndedReachesEveryNode) {
  const std::pair<ExitCode, absl::StatusCode> cases[] = {
      {ExitCode::kBadInput, absl::StatusCode::kFailedPrecondition},
      {ExitCode::kInterrupted, absl::StatusCode::kUnavailable},
      {ExitCode::kFailed, absl::StatusCode::kAborted}};
  for (const auto& [end, code] : cases) {
    auto server = StartServer(2);
    ASSERT_NE(server, nullptr);
    auto n0 = Join(NodeOptions(*server, 0));
    auto n1 = Join(NodeOptions(*server, 1));
    ASSERT_TRUE(server->WaitForNodes(20).ok());
    server->Shutdown(end, "node 1 (vm) disconnected");
    for (auto* n : {&n0, &n1}) {
      ASSERT_EQ(n->wait_for(std::chrono::seconds(20)),
                std::future_status::ready);
      absl::Status s = n->get();
      EXPECT_EQ(s.code(), code) << ToInt(end) << ": " << s;
      EXPECT_NE(s.message().find("node 1 (vm) disconnected"), std::string::npos)
          << s;
    }
  }
}

// Each refusal names the rule and never echoes the token.
TEST(SessionServer, RegistrationsThatBreakTheRulesAreRefusedByName) {
  auto server = StartServer(2);
  ASSERT_NE(server, nullptr);
  NodeSessionOptions wrong = NodeOptions(*server, 0);
  wrong.token = "guess-123";
  absl::Status s = RunNodeSession(wrong);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("a wrong token"), std::string::npos) << s;
  EXPECT_EQ(s.message().find("guess-123"), std::string::npos) << s;
  EXPECT_EQ(s.message().find(kToken), std::string::npos) << s;

  s = RunNodeSession(NodeOptions(*server, 5));
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("node index 5 is out of range; NUM_NODES is 2"),
            std::string::npos)
      << s;

  NodeSessionOptions future = NodeOptions(*server, 0);
  future.protocol_version = kProtocolVersion + 1;
  s = RunNodeSession(future);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find(
                absl::StrCat("speaks protocol version ", kProtocolVersion + 1)),
            std::string::npos)
      << s;
  // A node of the build before workloads and mid-phase actions (version
  // 1) is refused, with the reason.
  NodeSessionOptions old = NodeOptions(*server, 0);
  old.protocol_version = 1;
  s = RunNodeSession(old);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find(absl::StrCat(
                "speaks protocol version 1; this coordinator speaks version ",
                kProtocolVersion)),
            std::string::npos)
      << s;

  auto first = Join(NodeOptions(*server, 0));
  // Node 1 never comes: the wait names it.
  auto nodes = server->WaitForNodes(1.5);
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.status().message().find("1 never registered: node index 1"),
            std::string::npos)
      << nodes.status();
  NodeSessionOptions dup = NodeOptions(*server, 0);
  dup.host = "other-host";
  s = RunNodeSession(dup);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("is already registered by host host-0 "
                             "(duplicate index)"),
            std::string::npos)
      << s;
  server->Shutdown(ExitCode::kFailed, "test over");
  ASSERT_EQ(first.wait_for(std::chrono::seconds(20)),
            std::future_status::ready);
}

// Issue 27, item 5: a client that registers and then answers every
// command with a message of another type (here a CommitReply) once got a
// save recorded "ok" with 0 B in -0.050 s: the empty reply of the right
// type was taken for an answer. Each call now fails, naming the node.
TEST(SessionServer, AReplyOfAnotherTypeFailsTheCallNamingTheNode) {
  auto server = StartServer(1);
  ASSERT_NE(server, nullptr);
  // Ends the liar whatever the assertions below do: the server first.
  struct Ender {
    SessionServer* server;
    ~Ender() { server->Shutdown(ExitCode::kFailed, "test over"); }
  };
  LyingNode liar(server->port(), kToken, "liar");
  Ender ender{server.get()};
  auto nodes = server->WaitForNodes(20);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  NodeClient* node = (*nodes)[0];
  auto prepared = node->Prepare(PhaseJob());
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().message(),
            "node 0 (liar) answered a prepare call with commit (a ckptbench "
            "node of another version, or another program on the control "
            "port?)");
  ReportedPhase report = node->StartPhase(PhaseStart(), {});
  ASSERT_FALSE(report.status.ok());
  EXPECT_FALSE(IsNodeError(report.status)) << report.status;
  EXPECT_NE(report.status.message().find("answered a phase_report call "
                                         "with commit"),
            std::string::npos)
      << report.status;
  // A reply of the right type still passes.
  absl::Status committed = node->Commit(CommitJob());
  EXPECT_TRUE(committed.ok()) << committed;
}

// Issue 27, item 6: gRPC binds with SO_REUSEPORT by default, so a second
// coordinator on a port in use started too and took half the nodes.
TEST(SessionServer, ASecondServerOnAPortInUseRefusesToStart) {
  auto first = StartServer(1);
  ASSERT_NE(first, nullptr);
  SessionServerOptions o;
  o.listen = "127.0.0.1:" + std::to_string(first->port());
  o.num_nodes = 1;
  o.run_id = "run-2";
  auto second = SessionServer::Start(o);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(),
            "control.listen (CKPT_LISTEN) = '" + o.listen +
                "': cannot listen there: port " +
                std::to_string(first->port()) +
                " is already in use (another coordinator, or another program, "
                "listens there); expected a free HOST:PORT (or port 0 for "
                "any)");
  first->Shutdown(ExitCode::kFailed, "test over");
}

// Issue 27, item 10: a registration's host name, sent before any check,
// cannot forge log lines or drive the terminal, refused or not.
TEST(SessionServer, AHostNameWithControlCharactersCannotForgeLogLines) {
  auto server = StartServer(1);
  ASSERT_NE(server, nullptr);
  const std::string evil = "evil\nI 00:00:00.000 node 0 forged\x1B[2J\x07";
  for (const std::string token : {"guess-123", kToken}) {
    NodeSessionOptions o = NodeOptions(*server, 0);
    o.host = evil;
    o.token = token;
    ::testing::internal::CaptureStderr();
    // Bounded: a node wrongly admitted would stay registered.
    auto session = Join(o);
    const bool ended =
        session.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    if (!ended)
      server->Shutdown(ExitCode::kFailed, "admitted a host it should refuse");
    absl::Status s = session.get();
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_TRUE(ended) << "the registration was accepted";
    EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
    EXPECT_EQ(log.find('\x1B'), std::string::npos) << log;
    EXPECT_EQ(log.find('\x07'), std::string::npos) << log;
    EXPECT_EQ(log.find("\nI 00:00:00.000 node 0 forged"), std::string::npos)
        << log;
    EXPECT_NE(log.find("evil\\nI 00:00:00.000 node 0 forged\\x1B[2J\\x07"),
              std::string::npos)
        << log;
    if (token == kToken) {
      EXPECT_NE(s.message().find("host name of 38 bytes with control or "
                                 "invalid characters"),
                std::string::npos)
          << s;
    }
  }
  server->Shutdown(ExitCode::kFailed, "test over");
}

// Issue 14, case 12: a node whose coordinator is not there gives up after
// control.connect_timeout (default 120 s, not 600 s), saying so.
TEST(NodeSession, ANodeWithNoCoordinatorGivesUpAfterTheConnectTimeout) {
  EXPECT_EQ(Config().control.connect_timeout, 120);
  const KeyDef* key = FindKey("control.connect_timeout");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->get(Config()), "120");
  EXPECT_EQ(NodeSessionOptions().connect_timeout, 120);

  auto server = StartServer(1);  // a port that was serving, now closed
  ASSERT_NE(server, nullptr);
  NodeSessionOptions o = NodeOptions(*server, 0);
  server.reset();
  o.connect_timeout = 2;
  const auto t0 = std::chrono::steady_clock::now();
  absl::Status s = RunNodeSession(o);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  // Never reached is exit 1 (DeadlineExceeded), not a lost coordinator's 3.
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  EXPECT_NE(s.message().find("2 s (control.connect_timeout)"),
            std::string::npos)
      << s;
  EXPECT_GE(took, 1.9);
  EXPECT_LT(took, 15);
}

}  // namespace
}  // namespace ckpt
