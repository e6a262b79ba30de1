// A loopback HTTP/1.1 server answering from a handler, recording requests:
// stands in for STS, a container credentials endpoint or IMDS in tests (so
// tests never reach real cloud endpoints). Thread-safe.
#ifndef CKPTBENCH_TESTS_TESTING_STUB_HTTP_SERVER_H_
#define CKPTBENCH_TESTS_TESTING_STUB_HTTP_SERVER_H_

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ckpt {

struct StubRequest {
  std::string method, target, head, body;
};
struct StubResponse {
  StubResponse(int status = 200, std::string body = "",
               std::string headers = "")
      : status(status), body(std::move(body)), headers(std::move(headers)) {}
  int status;
  std::string body;
  std::string headers;  // extra header lines, each ending in \r\n
};

class StubHttpServer {
 public:
  explicit StubHttpServer(
      std::function<StubResponse(const StubRequest&)> handler);
  ~StubHttpServer();
  int port() const { return port_; }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_);
  }
  std::vector<StubRequest> requests();

 private:
  void Loop();
  std::function<StubResponse(const StubRequest&)> handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<StubRequest> requests_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_STUB_HTTP_SERVER_H_
