// `ckptbench node`: a node agent that dials the coordinator and serves its
// rounds. Experiment settings come from the coordinator; this process only
// needs its connection settings (flags or env).
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/config_loader.h"
#include "common/exit_code.h"
#include "common/grpc_tls.h"
#include "common/health_server.h"
#include "common/log.h"
#include "common/names.h"
#include "coordinator/environment.h"
#include "main/commands.h"
#include "main/run_support.h"
#include "node/node_session.h"

namespace ckpt {

int NodeIndexFromEnvironment(const std::string& host, std::string* source) {
  for (const char* var : {"JOB_COMPLETION_INDEX", "NODE_RANK"}) {
    const char* v = std::getenv(var);
    int i = -1;
    if (v != nullptr && absl::SimpleAtoi(v, &i) && i >= 0) {
      *source = var;
      return i;
    }
  }
  // StatefulSet pods are <name>-<ordinal>; JobSet pods end in -<index>-<pod>
  // where the job completion index is the env var above.
  size_t dash = host.rfind('-');
  int i = -1;
  if (dash != std::string::npos &&
      absl::SimpleAtoi(host.substr(dash + 1), &i) && i >= 0) {
    *source = "host name ordinal";
    return i;
  }
  return -1;
}

int NodeCommand(const CliArgs& args) {
  SignalWatcher signals;
  auto loaded = LoadConfigFromArgs(args);
  if (!loaded.ok()) {
    PrintError(std::string(loaded.status().message()));
    return 2;
  }
  const ControlOptions& c = loaded->config.control;
  if (c.coordinator.empty()) {
    std::fprintf(
        stderr,
        "ckptbench: control.coordinator (CKPT_COORDINATOR) is not set: "
        "expected the coordinator's HOST[:PORT] (--coordinator)\n");
    return 2;
  }
  const std::string host = HostName();
  int index = c.node_index;
  std::string source = "control.node_index";
  if (index < 0) index = NodeIndexFromEnvironment(host, &source);
  if (index < 0) {
    std::fprintf(stderr,
                 "ckptbench: no node index: expected --node-index, "
                 "CKPT_NODE_INDEX, JOB_COMPLETION_INDEX, NODE_RANK or a host "
                 "name ending in -<number> (host is '%s')\n",
                 host.c_str());
    return 2;
  }
  auto creds = MakeChannelCredentials(c);
  if (!creds.ok()) {
    PrintError(std::string(creds.status().message()));
    return 2;
  }
  std::unique_ptr<HealthServer> health;
  if (c.node_health_port > 0) {
    auto h =
        HealthServer::Start(c.node_health_port, "control.node_health_port");
    if (!h.ok()) {
      PrintError(std::string(h.status().message()));
      return 2;
    }
    health = std::move(*h);
  }
  signals.Watch([](const std::string& name) {
    // The coordinator sees the session end and fails the round naming us.
    std::fprintf(stderr, "ckptbench node: %s: leaving\n", name.c_str());
    std::_Exit(ToInt(ExitCode::kInterrupted));
  });
  LOG_INFO("node %d (%s, index from %s) dialing %s", index, host, source,
           WithDefaultPort(c.coordinator, kDefaultControlPort));
  NodeSessionOptions so;
  so.coordinator = WithDefaultPort(c.coordinator, kDefaultControlPort);
  so.node_index = index;
  so.host = host;
  so.token = c.token;
  so.credentials = *creds;
  so.tls_server_name = c.tls_server_name;
  so.connect_timeout = c.connect_timeout;
  so.protocol_version = args.protocol_version;
  absl::Status s = RunNodeSession(so);
  signals.Watch(nullptr);
  health.reset();
  if (s.ok()) {
    LOG_INFO("node %d: run finished", index);
    return 0;
  }
  PrintError(std::string(s.message()),
             absl::StrCat("ckptbench node ", index, ": "));
  // RunNodeSession gives each exit status a status code of its own.
  if (absl::IsFailedPrecondition(s)) return ToInt(ExitCode::kBadInput);
  if (absl::IsUnavailable(s)) return ToInt(ExitCode::kInterrupted);
  return ToInt(ExitCode::kFailed);
}

}  // namespace ckpt
