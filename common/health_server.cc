#include "common/health_server.h"

#include <chrono>

#include "absl/strings/str_cat.h"

namespace ckpt {

absl::StatusOr<std::unique_ptr<HealthServer>> HealthServer::Start(
    int port, const std::string& key) {
  grpc::EnableDefaultHealthCheckService(true);
  std::unique_ptr<HealthServer> h(new HealthServer());
  grpc::ServerBuilder b;
  // No service of our own: the health service needs a completion queue that
  // someone polls.
  h->cq_ = b.AddCompletionQueue();
  // As on the control port: no SO_REUSEPORT, so a port another process
  // holds is an error here, not two servers sharing it.
  b.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  int bound = 0;
  b.AddListeningPort(absl::StrCat("0.0.0.0:", port),
                     grpc::InsecureServerCredentials(), &bound);
  h->server_ = b.BuildAndStart();
  if (!h->server_ || bound == 0) {
    if (h->server_) h->server_->Shutdown();
    h->cq_->Shutdown();
    void* tag;
    bool ok;
    while (h->cq_->Next(&tag, &ok)) {
    }
    h->server_.reset();
    return absl::InvalidArgumentError(absl::StrCat(
        key, " = ", port, ": cannot listen (in use, or not a port)"));
  }
  h->poller_ = std::thread([cq = h->cq_.get()] {
    void* tag;
    bool ok;
    while (cq->Next(&tag, &ok)) {
    }
  });
  return h;
}

HealthServer::~HealthServer() {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now());
  cq_->Shutdown();
  poller_.join();
}

}  // namespace ckpt
