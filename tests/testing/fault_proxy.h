// An HTTP/1.1 reverse proxy on loopback that forwards to an upstream (the
// Swift server) and injects faults by rule: S3 error responses (503
// SlowDown, 403), a connection reset mid-body, a stalled body. Used to
// prove the S3 client's retry behaviour. Thread-safe; one thread per
// client connection; stops (bounded) on destruction.
#ifndef CKPTBENCH_TESTS_TESTING_FAULT_PROXY_H_
#define CKPTBENCH_TESTS_TESTING_FAULT_PROXY_H_

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ckpt {

struct ProxyRequest {
  std::string method;
  std::string target;  // path and query
  std::string head;    // request line and headers, as received
  std::string body;    // the body when at most 64 KiB, else ""
  size_t body_size = 0;
};

enum class FaultKind { kNone, kError, kResetMidBody, kStall };

struct Fault {
  FaultKind kind = FaultKind::kNone;
  int status = 503;  // kError
  std::string code = "SlowDown";
  double stall_seconds = 5;  // kStall (bounded)
  // kNone: forward this body instead of the one received (Content-Length
  // is fixed up), when set.
  std::optional<std::string> forward_body;
  // kNone: forward this request head instead (e.g. re-signed), when set.
  std::optional<std::string> forward_head;
  // kNone: applied to the upstream's response head before it is relayed.
  std::function<std::string(const std::string&)> rewrite_response_head;
};

class FaultProxy {
 public:
  // `rule` is asked for every request (from proxy threads).
  FaultProxy(int upstream_port, std::function<Fault(const ProxyRequest&)> rule);
  ~FaultProxy();
  int port() const { return port_; }
  int faults_injected() const { return injected_.load(); }
  // Client connections accepted so far.
  int connections() const { return connections_.load(); }

 private:
  void Accept();
  void Serve(int client);

  int upstream_port_;
  std::function<Fault(const ProxyRequest&)> rule_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> injected_{0};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> workers_;
  std::vector<int> clients_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_FAULT_PROXY_H_
