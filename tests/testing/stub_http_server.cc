#include "tests/testing/stub_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>

#include "tests/testing/http_wire.h"

namespace ckpt {

StubHttpServer::StubHttpServer(
    std::function<StubResponse(const StubRequest&)> handler)
    : handler_(std::move(handler)) {
  fd_ = ListenLoopback(&port_);
  // Running before the constructor returns: a test may take every
  // descriptor next, and a thread starting then (UBSan checks its type,
  // through a pipe) would fail for it.
  std::promise<void> started;
  thread_ = std::thread([this, &started] {
    started.set_value();
    Loop();
  });
  started.get_future().wait();
}

StubHttpServer::~StubHttpServer() {
  stop_ = true;
  thread_.join();
  close(fd_);
}

std::vector<StubRequest> StubHttpServer::requests() {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

// One connection at a time, one request per connection: enough for the
// credential endpoints' few calls.
void StubHttpServer::Loop() {
  while (!stop_) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    int c = accept(fd_, nullptr, nullptr);
    if (c < 0) continue;
    std::string buf, head, body;
    if (ReadHead(c, buf, &head)) {
      std::string cl = HeaderValue(head, "content-length");
      if (cl.empty() || ReadExact(c, buf, std::stoul(cl), &body)) {
        StubRequest req;
        std::string line = head.substr(0, head.find("\r\n"));
        req.method = line.substr(0, line.find(' '));
        size_t t0 = line.find(' ') + 1;
        req.target = line.substr(t0, line.rfind(' ') - t0);
        req.head = head;
        req.body = body;
        {
          std::lock_guard<std::mutex> lock(mu_);
          requests_.push_back(req);
        }
        StubResponse rep = handler_(req);
        std::string out =
            "HTTP/1.1 " + std::to_string(rep.status) +
            " Stub\r\nContent-Length: " + std::to_string(rep.body.size()) +
            "\r\nConnection: close\r\n" + rep.headers + "\r\n" + rep.body;
        SendAll(c, out.data(), out.size());
      }
    }
    close(c);
  }
}

}  // namespace ckpt
