// StartFleet (coordinator/fleet.h) in one process over loopback gRPC, with
// node sessions (RunNodeSession) on threads: the fleet forms when every
// node registered and knows each node's clock; nodes missing at the
// timeout are named, with where to look on Kubernetes; an interrupt ends
// the wait; bad control settings are InvalidArgument, and a failed start
// leaves the control port free.
#include "coordinator/fleet.h"

#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cmath>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "node/node_session.h"
#include "tests/testing/subprocess.h"

namespace ckpt {
namespace {

constexpr char kFleetToken[] = "tok-fleet-52e1";

ControlOptions Control(double register_timeout = 20) {
  ControlOptions c;
  c.listen = "127.0.0.1:" + std::to_string(FreePort());
  c.token = kFleetToken;
  c.register_timeout = register_timeout;
  return c;
}

std::future<absl::Status> Join(const ControlOptions& control, int index) {
  NodeSessionOptions o;
  o.coordinator = control.listen;
  o.node_index = index;
  o.host = "host-" + std::to_string(index);
  o.token = kFleetToken;
  o.credentials = grpc::InsecureChannelCredentials();
  o.connect_timeout = 20;
  return std::async(std::launch::async, [o] { return RunNodeSession(o); });
}

// What the fleet asked of its interrupt hook: a callback while it waited
// (`watched`), then null (`unwatched`).
struct Hook {
  std::mutex mu;
  int watched = 0, unwatched = 0;
  std::function<void(const std::string&)> on_signal;

  WatchInterrupts Watch() {
    return [this](std::function<void(const std::string&)> f) {
      std::lock_guard<std::mutex> lock(mu);
      (f ? watched : unwatched)++;
      on_signal = std::move(f);
    };
  }
};

// A variable of the environment set for one test, restored after it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = getenv(name);
    if (old != nullptr) old_ = old;
    had_ = old != nullptr;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(Fleet, FormsWhenEveryNodeRegisteredAndKnowsEachNodesClock) {
  const ControlOptions control = Control();
  auto n1 = Join(control, 1);  // out of order: the fleet is in index order
  auto n0 = Join(control, 0);
  Hook hook;
  auto fleet = StartFleet(control, 2, "run-fleet", hook.Watch());
  ASSERT_TRUE(fleet.ok()) << fleet.status();
  ASSERT_EQ(fleet->nodes.size(), 2u);
  ASSERT_EQ(fleet->clocks.size(), 2u);
  const int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(fleet->nodes[i]->index(), i);
    EXPECT_EQ(fleet->clocks[i].node, i);
    EXPECT_EQ(fleet->clocks[i].host, "host-" + std::to_string(i));
    // One host: the offset is within a second, the round trip was measured
    // (over zero) and kept on the node the rounds use.
    EXPECT_LT(std::fabs(fleet->clocks[i].offset_ms), 1000);
    EXPECT_GT(fleet->clocks[i].rtt_ms, 0);
    EXPECT_DOUBLE_EQ(fleet->nodes[i]->rtt_seconds() * 1e3,
                     fleet->clocks[i].rtt_ms);
    // The nodes answer: a ping crosses the session.
    auto pong = fleet->nodes[i]->Ping(0);
    ASSERT_TRUE(pong.ok()) << pong.status();
    EXPECT_LT(std::llabs(*pong - now_ns), 60'000'000'000);
  }
  EXPECT_EQ(fleet->health, nullptr);  // control.coordinator_health_port 0
  {
    std::lock_guard<std::mutex> lock(hook.mu);
    EXPECT_EQ(hook.watched, 1);
    EXPECT_EQ(hook.unwatched, 1);  // the wait ended: no longer watched
  }
  fleet->server->Shutdown(ExitCode::kOk, "done");
  ASSERT_EQ(n0.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  ASSERT_EQ(n1.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_TRUE(n0.get().ok());
  EXPECT_TRUE(n1.get().ok());
}

TEST(Fleet, NodesMissingAtTheTimeoutAreNamedAndTheNodesThatCameAreEnded) {
  ScopedEnv no_k8s("KUBERNETES_SERVICE_HOST", nullptr);
  const ControlOptions control = Control(/*register_timeout=*/1);
  auto n0 = Join(control, 0);
  Hook hook;
  auto fleet = StartFleet(control, 3, "run-fleet", hook.Watch());
  ASSERT_FALSE(fleet.ok());
  EXPECT_TRUE(absl::IsDeadlineExceeded(fleet.status())) << fleet.status();
  EXPECT_NE(fleet.status().message().find("node index 1, 2"), std::string::npos)
      << fleet.status();
  // Off Kubernetes, no kubectl advice.
  EXPECT_EQ(fleet.status().message().find("kubectl"), std::string::npos)
      << fleet.status();
  // The server was shut down with the failure: the node that came is told
  // the run failed (Aborted), not left waiting.
  ASSERT_EQ(n0.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  absl::Status node = n0.get();
  EXPECT_TRUE(absl::IsAborted(node)) << node;
  std::lock_guard<std::mutex> lock(hook.mu);
  EXPECT_EQ(hook.unwatched, 1);
}

TEST(Fleet, OnKubernetesTheTimeoutSaysWhichPodsToLookAtEscaped) {
  ScopedEnv k8s("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  // A hostile JobSet name: the terminal must not get its escape sequence.
  ScopedEnv jobset("JOBSET_NAME", "ckpt\x1b]0;owned\x07");
  Hook hook;
  auto fleet = StartFleet(Control(/*register_timeout=*/0.3), 1, "run-fleet",
                          hook.Watch());
  ASSERT_FALSE(fleet.ok());
  EXPECT_TRUE(absl::IsDeadlineExceeded(fleet.status())) << fleet.status();
  const std::string msg(fleet.status().message());
  EXPECT_NE(msg.find("node index 0"), std::string::npos) << msg;
  EXPECT_NE(
      msg.find("`kubectl get pods -l jobset.sigs.k8s.io/jobset-name=ckpt"),
      std::string::npos)
      << msg;
  EXPECT_NE(msg.find("kubectl describe pod"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\x07'), std::string::npos) << msg;
  // Without JOBSET_NAME, the node pods of the manifests' replicated job.
  ScopedEnv no_jobset("JOBSET_NAME", nullptr);
  fleet = StartFleet(Control(0.3), 1, "run-fleet", hook.Watch());
  ASSERT_FALSE(fleet.ok());
  EXPECT_NE(fleet.status().message().find(
                "-l jobset.sigs.k8s.io/replicatedjob-name=nodes`"),
            std::string::npos)
      << fleet.status();
}

TEST(Fleet, AnInterruptEndsTheWaitForNodesNamingTheSignal) {
  Hook hook;
  std::thread interrupter;
  WatchInterrupts watch = [&](std::function<void(const std::string&)> f) {
    hook.Watch()(f);
    if (f) {
      interrupter = std::thread([f] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        f("SIGTERM");
      });
    } else if (interrupter.joinable()) {
      // The hook's contract (fleet.h): no callback runs once it is
      // unwatched. The fleet frees its server right after.
      interrupter.join();
    }
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto fleet =
      StartFleet(Control(/*register_timeout=*/30), 2, "run-fleet", watch);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_FALSE(interrupter.joinable());  // joined when unwatched
  ASSERT_FALSE(fleet.ok());
  EXPECT_FALSE(absl::IsInvalidArgument(fleet.status())) << fleet.status();
  EXPECT_NE(fleet.status().message().find("interrupted by SIGTERM"),
            std::string::npos)
      << fleet.status();
  EXPECT_LT(waited, 20);  // not the 30 s timeout
  std::lock_guard<std::mutex> lock(hook.mu);
  EXPECT_EQ(hook.watched, 1);
  EXPECT_EQ(hook.unwatched, 1);
}

TEST(Fleet, BadControlSettingsAreInvalidArgumentAndLeaveThePortFree) {
  Hook hook;
  ControlOptions tls = Control();
  tls.tls_cert = "/nonexistent/ckpt-fleet-cert.pem";
  tls.tls_key = "/nonexistent/ckpt-fleet-key.pem";
  auto fleet = StartFleet(tls, 1, "run-fleet", hook.Watch());
  ASSERT_FALSE(fleet.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(fleet.status())) << fleet.status();
  EXPECT_NE(
      fleet.status().message().find(
          "tls.cert (CKPT_TLS_CERT) = '/nonexistent/ckpt-fleet-cert.pem'"),
      std::string::npos)
      << fleet.status();

  ControlOptions cert_only = Control();
  cert_only.tls_cert = tls.tls_cert;
  fleet = StartFleet(cert_only, 1, "run-fleet", hook.Watch());
  ASSERT_FALSE(fleet.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(fleet.status())) << fleet.status();
  EXPECT_NE(fleet.status().message().find("must be set together"),
            std::string::npos)
      << fleet.status();

  ControlOptions bad_listen = Control();
  bad_listen.listen = "127.0.0.1:notaport";
  fleet = StartFleet(bad_listen, 1, "run-fleet", hook.Watch());
  ASSERT_FALSE(fleet.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(fleet.status())) << fleet.status();
  EXPECT_NE(fleet.status().message().find(
                "control.listen (CKPT_LISTEN) = '127.0.0.1:notaport'"),
            std::string::npos)
      << fleet.status();
  {
    std::lock_guard<std::mutex> lock(hook.mu);
    EXPECT_EQ(hook.watched, 0);  // none got as far as waiting
  }

  // A fleet that failed after it listened (nodes missing) freed its port:
  // the next fleet listens there and forms.
  const ControlOptions control = Control(/*register_timeout=*/0.3);
  ASSERT_FALSE(StartFleet(control, 1, "run-fleet", hook.Watch()).ok());
  ControlOptions again = control;
  again.register_timeout = 20;
  auto n0 = Join(again, 0);
  fleet = StartFleet(again, 1, "run-fleet-2", hook.Watch());
  ASSERT_TRUE(fleet.ok()) << fleet.status();
  fleet->server->Shutdown(ExitCode::kOk, "done");
  ASSERT_EQ(n0.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_TRUE(n0.get().ok());
}

}  // namespace
}  // namespace ckpt
