#include "coordinator/session_server.h"

#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log.h"
#include "proto/ckptbench/v1/node.grpc.pb.h"

namespace ckpt {
namespace {

class SessionService final : public v1::Coordinator::Service {
 public:
  explicit SessionService(SessionServer* server) : server_(server) {}
  grpc::Status Session(grpc::ServerContext* ctx,
                       SessionStream* stream) override {
    return server_->Serve(ctx, stream);
  }

 private:
  SessionServer* server_;
};

bool SameSecret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

SessionServer::SessionServer(SessionServerOptions options)
    : options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<SessionServer>> SessionServer::Start(
    const SessionServerOptions& options) {
  std::unique_ptr<SessionServer> s(new SessionServer(options));
  grpc::EnableDefaultHealthCheckService(true);
  s->service_ = std::make_unique<SessionService>(s.get());
  grpc::ServerBuilder builder;
  // No credentials given (gRPC dereferences a null one): plaintext.
  builder.AddListeningPort(options.listen,
                           options.tls.credentials
                               ? options.tls.credentials
                               : grpc::InsecureServerCredentials(),
                           &s->port_);
  builder.RegisterService(s->service_.get());
  builder.SetMaxReceiveMessageSize(-1);
  builder.SetMaxSendMessageSize(-1);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 5000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  s->server_ = builder.BuildAndStart();
  if (!s->server_ || s->port_ == 0) {
    return absl::UnavailableError(absl::StrCat(
        "control.listen (CKPT_LISTEN) = '", options.listen,
        "': cannot listen there (address in use or not HOST:PORT?)"));
  }
  return s;
}

SessionServer::~SessionServer() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now());
}

std::string SessionServer::Validate(const v1::RegisterRequest& reg) {
  std::string who =
      absl::StrCat("node ", reg.node_index(), " (", reg.host(), ")");
  if (reg.protocol_version() != v1::PROTOCOL_VERSION_1) {
    return absl::StrCat(who, " speaks protocol version ",
                        static_cast<int>(reg.protocol_version()),
                        "; this coordinator speaks version 1 (ckptbench ",
                        CKPTBENCH_VERSION_STRING,
                        "): run the same ckptbench "
                        "version on coordinator and nodes");
  }
  if (!options_.token.empty() && !SameSecret(reg.token(), options_.token)) {
    return absl::StrCat(who, " presented ",
                        reg.token().empty() ? "no token" : "a wrong token",
                        "; this coordinator requires auth.token (CKPT_TOKEN)");
  }
  if (reg.node_index() < 0 || reg.node_index() >= options_.num_nodes) {
    return absl::StrCat(who, ": node index ", reg.node_index(),
                        " is out of range; NUM_NODES is ", options_.num_nodes,
                        " (indexes 0..", options_.num_nodes - 1, ")");
  }
  auto it = nodes_.find(reg.node_index());
  if (it != nodes_.end()) {
    if (it->second->connected()) {
      return absl::StrCat(who, ": node index ", reg.node_index(),
                          " is already registered by host ", it->second->host(),
                          " (duplicate index)");
    }
    if (started_) {
      return absl::StrCat(
          who, ": node ", reg.node_index(),
          " was lost during the run; rejoining is not supported");
    }
  }
  return "";
}

grpc::Status SessionServer::Serve(grpc::ServerContext* ctx,
                                  SessionStream* stream) {
  v1::NodeMessage first;
  if (!stream->Read(&first))
    return grpc::Status(grpc::StatusCode::CANCELLED, "no register");
  if (!first.has_register_()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "the first message of a session must be `register`");
  }
  const v1::RegisterRequest& reg = first.register_();
  RemoteNode* node = nullptr;
  v1::CoordinatorMessage reply;
  auto* rr = reply.mutable_register_reply();
  rr->set_run_id(options_.run_id);
  rr->set_heartbeat_interval_seconds(options_.heartbeat_interval);
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::string error = Validate(reg);
    if (!error.empty()) {
      LOG_ERROR("refused registration: %s", error);
      rr->set_accepted(false);
      rr->set_error(error);
      stream->Write(reply);
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, error);
    }
    auto& slot = nodes_[reg.node_index()];
    if (slot) retired_.push_back(std::move(slot));
    slot = std::make_unique<RemoteNode>(reg.node_index(), reg.host(), stream,
                                        options_.node_timeout);
    node = slot.get();
    ++active_streams_;
    rr->set_accepted(true);
    stream->Write(reply);
    LOG_INFO("node %d registered from %s (%s)", reg.node_index(), reg.host(),
             ctx->peer());
  }
  cv_.notify_all();
  v1::NodeMessage msg;
  while (stream->Read(&msg)) node->OnMessage(std::move(msg));
  node->OnDisconnect(ctx->IsCancelled() ? "its stream was cancelled"
                                        : "the connection closed");
  {
    std::lock_guard<std::mutex> lock(mu_);
    --active_streams_;
  }
  cv_.notify_all();
  return grpc::Status::OK;
}

absl::StatusOr<std::vector<RemoteNode*>> SessionServer::WaitForNodes(
    double timeout_seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  auto all_here = [&] {
    for (int i = 0; i < options_.num_nodes; ++i) {
      auto it = nodes_.find(i);
      if (it == nodes_.end() || !it->second->connected()) return false;
    }
    return true;
  };
  bool done = cv_.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
                           [&] { return all_here() || !cancelled_.empty(); });
  if (!cancelled_.empty()) return absl::CancelledError(cancelled_);
  if (!done) {
    std::vector<int> missing;
    for (int i = 0; i < options_.num_nodes; ++i) {
      auto it = nodes_.find(i);
      if (it == nodes_.end() || !it->second->connected()) missing.push_back(i);
    }
    return absl::DeadlineExceededError(absl::StrCat(
        "waited ", timeout_seconds, " s (control.register_timeout) for ",
        options_.num_nodes, " nodes; ", missing.size(),
        " never registered: node index ", absl::StrJoin(missing, ", ")));
  }
  started_ = true;
  std::vector<RemoteNode*> out;
  for (int i = 0; i < options_.num_nodes; ++i) out.push_back(nodes_[i].get());
  return out;
}

void SessionServer::CancelWait(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = reason;
  }
  cv_.notify_all();
}

void SessionServer::Shutdown(bool ok, const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [i, n] : nodes_) n->Shutdown(ok, reason);
  }
  // Give nodes a moment to close their streams, then stop.
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::seconds(2),
               [&] { return active_streams_ == 0; });
  lock.unlock();
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(500));
}

}  // namespace ckpt
