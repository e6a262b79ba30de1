#include "node/node_session.h"

#include <grpcpp/grpcpp.h>
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/protocol_version.h"
#include "node/node_service.h"
#include "proto/ckptbench/v1/node.grpc.pb.h"

namespace ckpt {
namespace {

using Stream =
    grpc::ClientReaderWriter<v1::NodeMessage, v1::CoordinatorMessage>;

grpc::ChannelArguments ChannelArgs(const NodeSessionOptions& o) {
  grpc::ChannelArguments args;
  // Notice a dead or hung coordinator even when no command is in flight.
  // (The timeout's length: common/protocol_version.h.)
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetInt(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, -1);
  args.SetInt(GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, -1);
  // Every attempt starts afresh: its own connections (not a subchannel
  // shared with an earlier attempt and still in its backoff), a name looked
  // up again (the coordinator's DNS record may appear only after the node
  // starts, as on Kubernetes and compose), and short reconnect backoffs:
  // the session loop below does the waiting, with jitter.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetInt(GRPC_ARG_DNS_MIN_TIME_BETWEEN_RESOLUTIONS_MS, 200);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  if (!o.tls_server_name.empty())
    args.SetSslTargetNameOverride(o.tls_server_name);
  return args;
}

// Longest one connection attempt may take before the loop tries anew.
constexpr double kAttemptSeconds = 3;

// A prepare or commit message at least this large leaves enough freed heap
// to be worth a malloc_trim (its madvise calls cost TLB shootdowns; a
// small message's trim gives back nothing and still pays them).
constexpr size_t kTrimMessageBytes = size_t{1} << 20;

// A steady-clock instant as the wall-clock deadline gRPC takes.
std::chrono::system_clock::time_point ToSystemDeadline(
    SteadyClock::time_point t) {
  return std::chrono::system_clock::now() +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             t - SteadyClock::now());
}

// How the coordinator said the run ended, as the status whose exit code
// (RunNodeSession's) is the coordinator's.
absl::Status ShutdownStatus(const v1::Shutdown& end) {
  if (end.ok()) return absl::OkStatus();
  switch (end.exit_code()) {
    case 2:
      return absl::FailedPreconditionError(absl::StrCat(
          "the coordinator ended the run: input to fix: ", end.reason()));
    case 3:
      return absl::UnavailableError(
          absl::StrCat("the coordinator ended the run: interrupted or a node "
                       "lost: ",
                       end.reason()));
    default:
      return absl::AbortedError(absl::StrCat(
          "the coordinator ended the run as failed: ", end.reason()));
  }
}

// Serves one registered session until shutdown or loss.
class Session {
 public:
  Session(Stream* stream, double heartbeat_interval, NodeWorkloads workloads)
      : stream_(stream),
        heartbeat_interval_(heartbeat_interval),
        service_(nullptr, std::move(workloads)) {}

  absl::Status Serve() {
    std::thread heartbeat([this] { HeartbeatLoop(); });
    absl::Status result = absl::UnavailableError("the coordinator went away");
    bool ended = false;
    while (!ended) {
      bool large = false;
      {
        // A message per read, not one reused: a reused protobuf keeps what
        // its largest message allocated (a prepare of 100,000 tensors is
        // tens of MiB) for the rest of the run.
        v1::CoordinatorMessage msg;
        if (!stream_->Read(&msg)) break;
        large = (msg.has_prepare() || msg.has_commit()) &&
                msg.ByteSizeLong() >= kTrimMessageBytes;
        ended = Dispatch(msg, &result);
      }
      if (large) malloc_trim(0);  // glibc: give the freed heap back
    }
    if (!ended) {
      LOG_ERROR("node: lost the coordinator; aborting transfers");
      service_.Abort(Abort("lost the coordinator"));
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (phase_.joinable()) phase_.join();
    heartbeat.join();
    return result;
  }

 private:
  static v1::AbortRequest Abort(const std::string& why) {
    v1::AbortRequest a;
    a.set_reason(why);
    return a;
  }

  void Send(v1::NodeMessage& m) {
    std::lock_guard<std::mutex> lock(write_mu_);
    stream_->Write(m);
  }

  void HeartbeatLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    auto period = std::chrono::duration<double>(heartbeat_interval_);
    while (!cv_.wait_for(lock, period, [this] { return stop_; })) {
      lock.unlock();
      v1::NodeMessage m;
      m.mutable_heartbeat()->set_node_unix_ns(NowUnixNs());
      Send(m);
      lock.lock();
    }
  }

  // Returns true when the session ends (shutdown).
  bool Dispatch(v1::CoordinatorMessage& msg, absl::Status* result) {
    v1::NodeMessage out;
    out.set_call_id(msg.call_id());
    switch (msg.body_case()) {
      case v1::CoordinatorMessage::kInspect:
        *out.mutable_inspect() = service_.Inspect(msg.inspect());
        break;
      case v1::CoordinatorMessage::kPrepare:
        if (phase_.joinable()) phase_.join();
        *out.mutable_prepare() =
            service_.Prepare(std::move(*msg.mutable_prepare()));
        break;
      case v1::CoordinatorMessage::kStartPhase: {
        if (phase_.joinable()) phase_.join();
        uint64_t id = msg.call_id();
        v1::StartPhaseRequest req = msg.start_phase();
        phase_ = std::thread([this, id, req] {
          double interval = req.progress_interval_seconds() > 0
                                ? req.progress_interval_seconds()
                                : 1.0;
          v1::PhaseReport rep = service_.StartPhase(
              req,
              [this, id](const v1::Progress& p) {
                v1::NodeMessage m;
                m.set_call_id(id);
                *m.mutable_progress() = p;
                Send(m);
              },
              [this, id](const v1::ActionRequest& ask) {
                v1::NodeMessage m;
                m.set_call_id(id);
                *m.mutable_action() = ask;
                Send(m);
              },
              interval);
          v1::NodeMessage m;
          m.set_call_id(id);
          *m.mutable_phase_report() = std::move(rep);
          Send(m);
          service_.AfterReport();
        });
        return false;
      }
      case v1::CoordinatorMessage::kActionReply:
        // The answer to the running phase's ask; the phase's own thread
        // waits for it.
        service_.ActionAnswered(msg.action_reply());
        return false;
      case v1::CoordinatorMessage::kCommit:
        *out.mutable_commit() =
            service_.Commit(std::move(*msg.mutable_commit()));
        break;
      case v1::CoordinatorMessage::kPutResult:
        *out.mutable_put_result() = service_.PutResult(msg.put_result());
        break;
      case v1::CoordinatorMessage::kClaim:
        *out.mutable_claim() = service_.Claim(msg.claim());
        break;
      case v1::CoordinatorMessage::kCleanup:
        *out.mutable_cleanup() = service_.Cleanup(msg.cleanup());
        break;
      case v1::CoordinatorMessage::kAbort:
        *out.mutable_abort() = service_.Abort(msg.abort());
        break;
      case v1::CoordinatorMessage::kPing:
        *out.mutable_ping() = service_.Ping(msg.ping());
        break;
      case v1::CoordinatorMessage::kShutdown:
        *result = ShutdownStatus(msg.shutdown());
        return true;
      default:
        return false;  // unknown command from a newer coordinator: ignore
    }
    Send(out);
    return false;
  }

  Stream* stream_;
  double heartbeat_interval_;
  NodeService service_;
  std::thread phase_;
  std::mutex write_mu_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

// The reason a channel did not connect in time: a call with a deadline
// fails with the channel's reason.
std::string WhyNotConnected(v1::Coordinator::Stub& stub) {
  grpc::ClientContext probe;
  probe.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::milliseconds(500));
  std::unique_ptr<Stream> s = stub.Session(&probe);
  s->WritesDone();
  grpc::Status st = s->Finish();
  return st.ok() || st.error_message().empty()
             ? absl::StrCat("no connection within ", kAttemptSeconds, " s")
             : st.error_message();
}

// Registers over a connected channel and serves the session: its end, or
// the coordinator's refusal; nullopt (the reason in `last_error`) to dial
// again.
std::optional<absl::Status> RegisterAndServe(v1::Coordinator::Stub& stub,
                                             const NodeSessionOptions& o,
                                             std::string* last_error) {
  grpc::ClientContext ctx;
  std::unique_ptr<Stream> stream = stub.Session(&ctx);
  v1::NodeMessage reg;
  auto* r = reg.mutable_register_();
  r->set_protocol_version(static_cast<v1::ProtocolVersion>(o.protocol_version));
  r->set_host(o.host);
  r->set_node_index(o.node_index);
  r->set_token(o.token);
  r->set_build_version(CKPTBENCH_VERSION_STRING);
  v1::CoordinatorMessage reply;
  if (stream->Write(reg) && stream->Read(&reply) &&
      reply.has_register_reply()) {
    const auto& rr = reply.register_reply();
    if (!rr.accepted()) {
      ctx.TryCancel();
      return absl::FailedPreconditionError(
          absl::StrCat("the coordinator refused registration: ", rr.error()));
    }
    LOG_INFO("node %d: registered with %s (run %s)", o.node_index,
             o.coordinator, rr.run_id());
    Session session(stream.get(),
                    rr.heartbeat_interval_seconds() > 0
                        ? rr.heartbeat_interval_seconds()
                        : 1.0,
                    o.workloads);
    absl::Status s = session.Serve();
    stream->WritesDone();
    ctx.TryCancel();
    return s;
  }
  grpc::Status st = stream->Finish();
  *last_error = st.error_message();
  if (st.error_code() == grpc::StatusCode::FAILED_PRECONDITION ||
      st.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
    return absl::FailedPreconditionError(
        absl::StrCat("the coordinator refused registration: ", *last_error));
  }
  return std::nullopt;
}

}  // namespace

absl::Status RunNodeSession(const NodeSessionOptions& o) {
  const auto deadline = SteadyClock::now() +
                        std::chrono::duration_cast<SteadyClock::duration>(
                            std::chrono::duration<double>(o.connect_timeout));
  std::mt19937_64 rng(std::random_device{}() ^
                      static_cast<uint64_t>(o.node_index));
  double backoff = 0.1;
  std::string last_error;
  // Said when dialing first fails, then every 10 s with the latest reason.
  auto next_say = SteadyClock::now();
  while (true) {
    auto channel =
        grpc::CreateCustomChannel(o.coordinator, o.credentials, ChannelArgs(o));
    auto stub = v1::Coordinator::NewStub(channel);
    // A bounded wait for a connection first: opening the session stream
    // has no deadline (it lasts the run), and would wait as long as the
    // channel keeps trying. Not connected in time: ask briefly for why (a
    // call with a deadline fails with the channel's reason), then retry.
    const auto attempt_end = std::min(
        deadline, SteadyClock::now() +
                      std::chrono::duration_cast<SteadyClock::duration>(
                          std::chrono::duration<double>(kAttemptSeconds)));
    if (!channel->WaitForConnected(ToSystemDeadline(attempt_end))) {
      last_error = WhyNotConnected(*stub);
    } else if (std::optional<absl::Status> end =
                   RegisterAndServe(*stub, o, &last_error)) {
      return *end;
    }
    if (SteadyClock::now() >= deadline) {
      // Never reached (a wrong address, TLS settings that do not match, a
      // coordinator that never started): not a lost peer that new pods
      // would bring back (node_session.h).
      return absl::DeadlineExceededError(absl::StrCat(
          "could not reach the coordinator at ", o.coordinator, " within ",
          o.connect_timeout, " s (control.connect_timeout): ", last_error));
    }
    if (SteadyClock::now() >= next_say) {
      LOG_INFO("node %d: coordinator %s not reachable yet (%s); retrying",
               o.node_index, o.coordinator, last_error);
      next_say = SteadyClock::now() + std::chrono::seconds(10);
    }
    // Full jitter: nodes started together do not dial in lockstep.
    std::uniform_real_distribution<double> jitter(0, backoff);
    std::this_thread::sleep_for(std::chrono::duration<double>(jitter(rng)));
    backoff = std::min(backoff * 2, 5.0);
  }
}

}  // namespace ckpt
