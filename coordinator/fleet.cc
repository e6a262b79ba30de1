#include "coordinator/fleet.h"

#include <cstdlib>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/bounded_tasks.h"
#include "common/grpc_tls.h"
#include "common/log.h"
#include "common/text.h"
#include "coordinator/round/clock_sync.h"

namespace ckpt {
namespace {

// Where to look for node pods that never registered, in a Kubernetes pod.
std::string KubernetesHint() {
  if (std::getenv("KUBERNETES_SERVICE_HOST") == nullptr) return "";
  const char* jobset = std::getenv("JOBSET_NAME");
  std::string selector = jobset != nullptr && *jobset != '\0'
                             ? absl::StrCat("jobset.sigs.k8s.io/jobset-name=",
                                            EscapeForTerminal(jobset))
                             : "jobset.sigs.k8s.io/replicatedjob-name=nodes";
  return absl::StrCat(
      ". On Kubernetes: `kubectl get pods -l ", selector,
      "`; a Pending pod's events (`kubectl describe pod`) say why it has no "
      "Kubernetes node: docs/kubernetes-fit.md lists which node types fit "
      "(a cluster autoscaler may need longer than CKPT_REGISTER_TIMEOUT to "
      "add nodes)");
}

// Clock offsets and round trips of the fleet's nodes, on up to
// kClockThreads nodes at a time (not a thread per node: at 1024 nodes that
// was 1024 threads), each logged and kept in fleet->clocks.
absl::Status EstimateClocks(Fleet* fleet) {
  constexpr int kClockThreads = 16;
  std::vector<absl::Status> errors(fleet->nodes.size());
  {
    BoundedTasks tasks(kClockThreads);
    for (size_t i = 0; i < fleet->nodes.size(); ++i) {
      (void)tasks.Start([&, i] {
        auto est = EstimateClock(*fleet->nodes[i]);
        if (!est.ok()) {
          errors[i] = est.status();
        } else {
          fleet->nodes[i]->SetClock(est->offset_ns, est->rtt_seconds);
        }
        return absl::OkStatus();  // each node's error is kept in errors[i]
      });
    }
    (void)tasks.Wait(0);
  }
  for (size_t i = 0; i < fleet->nodes.size(); ++i) {
    if (!errors[i].ok()) {
      // Unavailable only for a node lost meanwhile (FleetExitCode: 3); a
      // reply that makes no sense is the run's failure.
      const std::string why =
          absl::StrCat("clock estimate: ", errors[i].message());
      return fleet->nodes[i]->lost() ? absl::UnavailableError(why)
                                     : absl::InternalError(why);
    }
    RemoteNode* n = fleet->nodes[i];
    fleet->clocks.push_back({n->index(), n->host(),
                             static_cast<double>(n->clock_offset_ns()) / 1e6,
                             n->rtt_seconds() * 1e3});
    LOG_INFO("node %d (%s): clock offset %+.3f ms, round trip %.3f ms",
             n->index(), n->host(),
             static_cast<double>(n->clock_offset_ns()) / 1e6,
             n->rtt_seconds() * 1e3);
  }
  return absl::OkStatus();
}

}  // namespace

ExitCode FleetExitCode(const absl::Status& error) {
  if (absl::IsInvalidArgument(error)) return ExitCode::kBadInput;
  // Interrupted while waiting, or a node lost before its clock was known
  // (EstimateClocks' Unavailable); nodes that never came (the wait's
  // DeadlineExceeded) are not lost: the same pods would not bring them.
  if (absl::IsCancelled(error) || absl::IsUnavailable(error)) {
    return ExitCode::kInterrupted;
  }
  return ExitCode::kFailed;
}

absl::StatusOr<Fleet> StartFleet(const ControlOptions& control, int num_nodes,
                                 const std::string& run_id,
                                 const WatchInterrupts& watch) {
  auto tls = MakeServerCredentials(control);
  if (!tls.ok()) return absl::InvalidArgumentError(tls.status().message());
  if (!tls->tls) {
    LOG_WARN(
        "control channel without TLS: node traffic to %s is unencrypted "
        "(set tls.cert / tls.key, and tls.ca for mutual TLS)",
        control.listen);
  }
  if (control.token.empty()) {
    LOG_WARN(
        "no auth.token (CKPT_TOKEN): any node that reaches %s may register",
        control.listen);
  }
  SessionServerOptions so;
  so.listen = control.listen;
  so.tls = *tls;
  so.num_nodes = num_nodes;
  so.token = control.token;
  so.node_timeout = control.node_timeout;
  so.heartbeat_interval = control.heartbeat_interval;
  so.run_id = run_id;
  auto server = SessionServer::Start(so);
  if (!server.ok()) {
    return absl::InvalidArgumentError(server.status().message());
  }
  Fleet fleet;
  fleet.server = std::move(*server);
  if (control.coordinator_health_port > 0) {
    auto health = HealthServer::Start(control.coordinator_health_port,
                                      "control.coordinator_health_port");
    if (!health.ok()) {
      fleet.server->Shutdown(ExitCode::kBadInput,
                             std::string(health.status().message()));
      return health.status();
    }
    fleet.health = std::move(*health);
  }
  LOG_INFO(
      "coordinator listening on %s (%s%s); waiting up to %g s for %d node(s)",
      control.listen, tls->tls ? "TLS" : "plaintext",
      tls->mutual ? ", client certificates required" : "",
      control.register_timeout, num_nodes);
  SessionServer* s = fleet.server.get();
  watch([s](const std::string& name) {
    s->CancelWait(absl::StrCat("interrupted by ", name));
  });
  auto nodes = s->WaitForNodes(control.register_timeout);
  watch(nullptr);
  if (!nodes.ok()) {
    s->Shutdown(FleetExitCode(nodes.status()),
                std::string(nodes.status().message()));
    if (absl::IsDeadlineExceeded(nodes.status())) {
      return absl::DeadlineExceededError(
          absl::StrCat(nodes.status().message(), KubernetesHint()));
    }
    return nodes.status();
  }
  fleet.nodes = *nodes;

  if (absl::Status clocks = EstimateClocks(&fleet); !clocks.ok()) {
    s->Shutdown(FleetExitCode(clocks), std::string(clocks.message()));
    return clocks;
  }
  return fleet;
}

}  // namespace ckpt
