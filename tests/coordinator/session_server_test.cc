// SessionServer, RemoteNode and the node's side (RunNodeSession) in one
// process over loopback gRPC: registration rules, commands carried on the
// Session stream, shutdown, and the node's connect timeout.
#include "coordinator/session_server.h"

#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>

#include "common/config.h"
#include "node/node_session.h"
#include "node/storage/memory_storage.h"

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
  MemoryStorage::Clear();
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
  v1::PingRequest ping;
  auto pong = (*nodes)[0]->Ping(ping);
  ASSERT_TRUE(pong.ok()) << pong.status();
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  EXPECT_LT(std::llabs(pong->node_unix_ns() - now), 1'000'000'000);
  // A node-side refusal comes back as the reply's error and kind, not as a
  // transport failure.
  v1::InspectRequest inspect;
  inspect.set_checkpoints_uri("mem://b/checkpoints");
  inspect.set_want_metadata(true);
  inspect.set_metadata_step(7);
  auto listing = (*nodes)[1]->Inspect(inspect);
  ASSERT_TRUE(listing.ok()) << listing.status();
  EXPECT_FALSE(listing->error().empty());
  EXPECT_EQ(listing->error_kind(), v1::ERROR_KIND_NOT_FOUND);
  server->Shutdown(true, "done");
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
  server->Shutdown(false, "round 2 failed");
  ASSERT_EQ(n0.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  absl::Status s = n0.get();
  EXPECT_TRUE(absl::IsAborted(s)) << s;
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
  future.protocol_version = 2;
  s = RunNodeSession(future);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("speaks protocol version 2"), std::string::npos)
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
  server->Shutdown(false, "test over");
  ASSERT_EQ(first.wait_for(std::chrono::seconds(20)),
            std::future_status::ready);
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
  EXPECT_TRUE(absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s)) << s;
  EXPECT_NE(s.message().find("2 s (control.connect_timeout)"),
            std::string::npos)
      << s;
  EXPECT_GE(took, 1.9);
  EXPECT_LT(took, 15);
}

}  // namespace
}  // namespace ckpt
