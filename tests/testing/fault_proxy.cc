#include "tests/testing/fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <sstream>

#include "tests/testing/http_wire.h"

namespace ckpt {
namespace {

// Reads a whole response body (Content-Length or chunked) from upstream.
bool ReadBody(int fd, std::string& buf, const std::string& head,
              bool head_request, std::string* body) {
  if (head_request) return true;
  int status = std::atoi(head.c_str() + 9);
  if (status == 204 || status == 304) return true;
  std::string te = HeaderValue(head, "transfer-encoding");
  if (te.find("chunked") != std::string::npos) {
    // Relay raw chunked framing up to and including the last chunk.
    while (true) {
      size_t eol;
      while ((eol = buf.find("\r\n")) == std::string::npos) {
        char tmp[65536];
        ssize_t r = recv(fd, tmp, sizeof(tmp), 0);
        if (r <= 0) return false;
        buf.append(tmp, static_cast<size_t>(r));
      }
      size_t size = std::stoul(buf.substr(0, eol), nullptr, 16);
      std::string chunk;
      if (!ReadExact(fd, buf, eol + 2 + size + 2, &chunk)) return false;
      body->append(chunk);
      if (size == 0) return true;
    }
  }
  std::string cl = HeaderValue(head, "content-length");
  if (cl.empty()) return true;
  return ReadExact(fd, buf, std::stoul(cl), body);
}

// The request head with its Content-Length header set to n.
std::string ReplaceContentLength(const std::string& head, size_t n) {
  std::string lower = head;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  size_t at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) return head;
  size_t end = head.find("\r\n", at + 2);
  return head.substr(0, at) + "\r\nContent-Length: " + std::to_string(n) +
         head.substr(end);
}

}  // namespace

FaultProxy::FaultProxy(int upstream_port,
                       std::function<Fault(const ProxyRequest&)> rule)
    : upstream_port_(upstream_port), rule_(std::move(rule)) {
  listen_fd_ = ListenLoopback(&port_);
  acceptor_ = std::thread([this] { Accept(); });
}

FaultProxy::~FaultProxy() {
  stop_ = true;
  shutdown(listen_fd_, SHUT_RDWR);
  close(listen_fd_);
  acceptor_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int c : clients_) shutdown(c, SHUT_RDWR);
    workers.swap(workers_);
  }
  for (auto& t : workers) t.join();  // workers take mu_ as they leave
}

void FaultProxy::Accept() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    int c = accept(listen_fd_, nullptr, nullptr);
    if (c < 0) continue;
    ++connections_;
    std::lock_guard<std::mutex> lock(mu_);
    clients_.push_back(c);
    workers_.emplace_back([this, c] { Serve(c); });
  }
}

void FaultProxy::Serve(int client) {
  std::string cbuf;
  while (!stop_) {
    std::string head;
    if (!ReadHead(client, cbuf, &head)) break;
    std::string line = head.substr(0, head.find("\r\n"));
    ProxyRequest req;
    req.method = line.substr(0, line.find(' '));
    size_t t0 = line.find(' ') + 1;
    req.target = line.substr(t0, line.rfind(' ') - t0);
    std::string body;
    std::string cl = HeaderValue(head, "content-length");
    if (!cl.empty() && !ReadExact(client, cbuf, std::stoul(cl), &body)) break;
    req.head = head;
    req.body_size = body.size();
    if (body.size() <= (64u << 10)) req.body = body;
    Fault fault = rule_(req);
    if (fault.kind == FaultKind::kError) {
      ++injected_;
      std::string xml =
          "<?xml version=\"1.0\"?><Error><Code>" + fault.code +
          "</Code><Message>injected by the test proxy</Message></Error>";
      std::string rep = "HTTP/1.1 " + std::to_string(fault.status) +
                        " Injected\r\n" +
                        "Content-Type: application/xml\r\nContent-Length: " +
                        std::to_string(req.method == "HEAD" ? 0 : xml.size()) +
                        "\r\n\r\n" + (req.method == "HEAD" ? "" : xml);
      if (!SendAll(client, rep.data(), rep.size())) break;
      continue;
    }
    if (fault.forward_head) head = *fault.forward_head;
    if (fault.forward_body) {
      body = *fault.forward_body;
      head = ReplaceContentLength(head, body.size());
    }
    int up = ConnectLoopback(upstream_port_);
    if (up < 0) break;
    std::string fwd = head + body;
    std::string ubuf, uhead, ubody;
    bool ok = SendAll(up, fwd.data(), fwd.size()) &&
              ReadHead(up, ubuf, &uhead) &&
              ReadBody(up, ubuf, uhead, req.method == "HEAD", &ubody);
    close(up);
    if (!ok) break;
    if (fault.kind == FaultKind::kResetMidBody ||
        fault.kind == FaultKind::kStall) {
      ++injected_;
      SendAll(client, uhead.data(), uhead.size());
      SendAll(client, ubody.data(), ubody.size() / 2);
      if (fault.kind == FaultKind::kStall) {
        auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration<double>(fault.stall_seconds);
        while (!stop_ && std::chrono::steady_clock::now() < until)
          usleep(50000);
      }
      linger l{1, 0};  // RST, not FIN
      setsockopt(client, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
      break;
    }
    if (fault.rewrite_response_head) uhead = fault.rewrite_response_head(uhead);
    if (!SendAll(client, uhead.data(), uhead.size()) ||
        !SendAll(client, ubody.data(), ubody.size())) {
      break;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    clients_.erase(std::remove(clients_.begin(), clients_.end(), client),
                   clients_.end());
  }
  close(client);
}

}  // namespace ckpt
