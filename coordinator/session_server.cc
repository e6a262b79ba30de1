#include "coordinator/session_server.h"

#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log.h"
#include "common/protocol_version.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "proto/ckptbench/v1/node.grpc.pb.h"

// gRPC calls a reactor's callbacks on its own threads after the reactor's
// constructor ran, handing it over by atomics inside libgrpc that
// ThreadSanitizer cannot see (this file is not instrumented either; its
// mutex calls are). In the TSan build the reactor says so: the constructor
// releases it, each callback and Send acquires it first. Happens-before
// that exists; no report is hidden (docs/reliability.md).
#ifdef CKPTBENCH_TSAN_BUILD
#include <sanitizer/tsan_interface.h>
#define CKPT_HANDED_OVER(p) __tsan_release(p)
#define CKPT_TAKEN_OVER(p) __tsan_acquire(p)
#else
#define CKPT_HANDED_OVER(p) (void)(p)
#define CKPT_TAKEN_OVER(p) (void)(p)
#endif

namespace ckpt {
namespace {

// One node's Session stream. Reads one message at a time (the first must
// register the node; the rest go to its RemoteNode); writes are queued and
// sent one at a time, as the callback API requires. The stream is finished
// once reading ends (the node hung up, or the server is shutting down) and
// the queued writes are done; the reactor deletes itself in OnDone.
// Every hand-off to gRPC (StartRead, StartWrite) is made, and every
// reaction begins, under mu_: gRPC orders them with atomics of its own,
// and this way ThreadSanitizer sees that order too (docs/reliability.md).
// gRPC never runs a reaction inside a Start call, so holding mu_ there is
// safe.
// A stream's final status messages are kept within std::string's inline
// capacity (15 characters): gRPC's inlined code copies the message into
// the call on the finishing thread and frees it on another when the call
// ends, ordered by atomics inside libgrpc; a heap copy there is a
// ThreadSanitizer report (seen in CI on a refused registration). The
// reasons themselves travel in messages: a refusal's in its register
// reply, which the node reads before the status.
constexpr char kRefused[] = "refused";
constexpr char kRegisterFirst[] = "register first";
static_assert(sizeof(kRegisterFirst) <= 16 && sizeof(kRefused) <= 16);

// Why gRPC could not listen on HOST:PORT, found by binding it once more
// with a plain socket: "address already in use (another coordinator or
// program holds port 7000)", or what else bind(2) or the name lookup said.
std::string ListenFailure(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return "not HOST:PORT";
  std::string host = listen.substr(0, colon);
  const std::string port = listen.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const int gai =
      getaddrinfo(host.empty() || host == "*" ? nullptr : host.c_str(),
                  port.c_str(), &hints, &found);
  if (gai != 0) {
    return absl::StrCat("cannot resolve it (", gai_strerror(gai), ")");
  }
  std::string why = "gRPC could not bind it";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const int one = 1;  // as gRPC binds: TIME_WAIT does not count as in use
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    const int rc = bind(fd, a->ai_addr, a->ai_addrlen);
    const int err = errno;
    close(fd);
    if (rc != 0 && err == EADDRINUSE) {
      why = absl::StrCat("port ", port,
                         " is already in use (another coordinator, or "
                         "another program, listens there)");
      break;
    }
    if (rc != 0) why = absl::StrCat("bind: ", std::strerror(err));
  }
  freeaddrinfo(found);
  return why;
}

class SessionReactor final
    : public grpc::ServerBidiReactor<v1::NodeMessage, v1::CoordinatorMessage>,
      public SessionWriter {
 public:
  SessionReactor(SessionServer* server, grpc::CallbackServerContext* ctx)
      : server_(server), ctx_(ctx) {
    server_->StreamStarted();
    std::lock_guard<std::mutex> lock(mu_);
    CKPT_HANDED_OVER(this);
    StartReadInto();
  }

  bool Send(v1::CoordinatorMessage msg) override {
    CKPT_TAKEN_OVER(this);
    std::lock_guard<std::mutex> lock(mu_);
    if (finishing_ || write_failed_) return false;
    out_.push_back(std::move(msg));  // a deque: the one in flight stays put
    if (!writing_) {
      writing_ = true;
      StartWrite(&out_.front());
    }
    return true;
  }

  void OnWriteDone(bool ok) override {
    CKPT_TAKEN_OVER(this);
    std::optional<grpc::Status> finish;
    {
      std::lock_guard<std::mutex> lock(mu_);
      out_.pop_front();
      if (!ok) {
        write_failed_ = true;
        out_.clear();
      }
      if (!out_.empty()) {
        StartWrite(&out_.front());
      } else {
        writing_ = false;
        if (finishing_ && !finished_) {
          finished_ = true;
          finish = status_;
        }
      }
    }
    if (finish) Finish(std::move(*finish));
  }

  void OnReadDone(bool ok) override {
    CKPT_TAKEN_OVER(this);
    { std::lock_guard<std::mutex> lock(mu_); }  // see the class comment
    if (!ok) {
      if (node_) {
        node_->OnDisconnect(ctx_->IsCancelled() ? "its stream was cancelled"
                                                : "the connection closed");
      }
      FinishStream(grpc::Status::OK);
      return;
    }
    if (node_ != nullptr) {
      node_->OnMessage(std::move(in_));
      ReadNext();
      return;
    }
    if (!in_.has_register_()) {
      FinishStream(
          grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, kRegisterFirst));
      return;
    }
    v1::CoordinatorMessage reply;
    node_ = server_->Register(in_.register_(), ctx_->peer(), this, &reply);
    if (node_ == nullptr) {
      Send(reply);
      // The reason travels in the reply (queued first); see kRefused.
      FinishStream(
          grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, kRefused));
      return;
    }
    ReadNext();
  }

  void OnDone() override {
    CKPT_TAKEN_OVER(this);
    { std::lock_guard<std::mutex> lock(mu_); }  // see the class comment
    server_->StreamEnded(node_ != nullptr);
    delete this;
  }

 private:
  void ReadNext() {
    std::lock_guard<std::mutex> lock(mu_);
    StartReadInto();
  }

  // gRPC parses the next message into in_ on the thread that completes the
  // read; in the TSan build its Deserialize acquires what this releases
  // (tests/tsan/grpc_read_handover.h).
  void StartReadInto() {
    CKPT_HANDED_OVER(static_cast<google::protobuf::MessageLite*>(&in_));
    StartRead(&in_);
  }

  // Finishes with `status` once the queued writes are sent.
  void FinishStream(grpc::Status status) {
    std::optional<grpc::Status> finish;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (finishing_) return;
      finishing_ = true;
      status_ = std::move(status);
      if (!writing_) {
        finished_ = true;
        finish = status_;
      }
    }
    if (finish) Finish(std::move(*finish));
  }

  SessionServer* const server_;
  grpc::CallbackServerContext* const ctx_;
  RemoteNode* node_ = nullptr;  // set by registration, on the read side
  v1::NodeMessage in_;

  std::mutex mu_;
  std::deque<v1::CoordinatorMessage> out_;  // front: being written
  bool writing_ = false;
  bool write_failed_ = false;
  bool finishing_ = false;  // no more sends; Finish once the queue drains
  bool finished_ = false;
  grpc::Status status_;
};

class SessionService final : public v1::Coordinator::CallbackService {
 public:
  explicit SessionService(SessionServer* server) : server_(server) {}
  grpc::ServerBidiReactor<v1::NodeMessage, v1::CoordinatorMessage>* Session(
      grpc::CallbackServerContext* ctx) override {
    return new SessionReactor(server_, ctx);
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
  // The largest reply a node sends is an Inspect carrying a .metadata
  // (at most kMaxMetadataBytes): anything far past it is refused by gRPC
  // before it is buffered, whoever sends it.
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(kMaxMetadataBytes + (64u << 20)));
  builder.SetMaxSendMessageSize(-1);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                             kKeepaliveTimeoutMs);
  // gRPC binds with SO_REUSEPORT by default on Linux: a second coordinator
  // on the same port would start too, and the nodes split between them.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  s->server_ = builder.BuildAndStart();
  if (!s->server_ || s->port_ == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("control.listen (CKPT_LISTEN) = '", options.listen,
                     "': cannot listen there: ", ListenFailure(options.listen),
                     "; expected a free HOST:PORT (or port 0 for any)"));
  }
  s->watchdog_ = std::thread([p = s.get()] { p->Watchdog(); });
  return s;
}

SessionServer::~SessionServer() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now());
  {
    // Shutdown cancels every stream, but a reactor's OnDone may still be
    // running on a gRPC thread: wait until the last is done with us.
    std::unique_lock<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.wait(lock, [this] { return live_reactors_ == 0; });
  }
  cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

std::string SessionServer::Validate(const v1::RegisterRequest& reg) {
  // Whoever reaches the port sends this before any check: the name goes
  // into the log and the reply escaped and cut short.
  constexpr size_t kMaxHost = 255;  // a DNS name's length
  const std::string& host = reg.host();
  std::string who = absl::StrCat(
      "node ", reg.node_index(), " (",
      EscapeForTerminal(std::string_view(host).substr(0, kMaxHost)),
      host.size() > kMaxHost ? "..." : "", ")");
  if (reg.protocol_version() != kProtocolVersion) {
    return absl::StrCat(who, " speaks protocol version ",
                        static_cast<int>(reg.protocol_version()),
                        "; this coordinator speaks version ", kProtocolVersion,
                        " (ckptbench ", CKPTBENCH_VERSION_STRING,
                        "): run the same ckptbench "
                        "version on coordinator and nodes");
  }
  if (!options_.token.empty() && !SameSecret(reg.token(), options_.token)) {
    return absl::StrCat(who, " presented ",
                        reg.token().empty() ? "no token" : "a wrong token",
                        "; this coordinator requires auth.token (CKPT_TOKEN)");
  }
  if (host.empty() || host.size() > kMaxHost ||
      EscapeForTerminal(host) != host) {
    return absl::StrCat(who, ": host name of ", host.size(),
                        " bytes with control or invalid characters, or "
                        "empty; expected a host name of at most ",
                        kMaxHost, " printable bytes");
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

RemoteNode* SessionServer::Register(const v1::RegisterRequest& reg,
                                    const std::string& peer,
                                    SessionWriter* writer,
                                    v1::CoordinatorMessage* reply) {
  auto* rr = reply->mutable_register_reply();
  RemoteNode* node = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::string error = Validate(reg);
    if (!error.empty()) {
      LOG_ERROR("refused registration: %s", error);
      rr->set_accepted(false);
      rr->set_error(error);
      return nullptr;
    }
    auto& slot = nodes_[reg.node_index()];
    if (slot) retired_.push_back(std::move(slot));
    slot = std::make_unique<RemoteNode>(reg.node_index(), reg.host(), writer,
                                        options_.node_timeout);
    node = slot.get();
    ++active_streams_;
    // Only an admitted node learns the run's id and pace.
    rr->set_accepted(true);
    rr->set_run_id(options_.run_id);
    rr->set_heartbeat_interval_seconds(options_.heartbeat_interval);
    // Queued before anyone can see the node, so it is the first message.
    writer->Send(*reply);
    LOG_INFO("node %d registered from %s (%s)", reg.node_index(), reg.host(),
             peer);
  }
  cv_.notify_all();
  return node;
}

void SessionServer::StreamStarted() {
  std::lock_guard<std::mutex> lock(mu_);
  ++live_reactors_;
}

void SessionServer::StreamEnded(bool registered) {
  // Notified under the lock: once live_reactors_ is 0 the destructor may
  // go on and destroy cv_.
  std::lock_guard<std::mutex> lock(mu_);
  if (registered) --active_streams_;
  --live_reactors_;
  cv_.notify_all();
}

void SessionServer::Watchdog() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::milliseconds(200));
    std::vector<RemoteNode*> nodes;
    for (auto& [i, n] : nodes_) nodes.push_back(n.get());
    lock.unlock();
    for (RemoteNode* n : nodes) n->CheckSilence();
    lock.lock();
  }
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

void SessionServer::Shutdown(ExitCode end, const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [i, n] : nodes_) n->Shutdown(end, reason);
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
