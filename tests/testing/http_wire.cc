#include "tests/testing/http_wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <sstream>

namespace ckpt {

int ListenLoopback(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  listen(fd, 64);
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

int ConnectLoopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Reads until "\r\n\r\n"; leftover bytes stay in `buf`.
bool ReadHead(int fd, std::string& buf, std::string* head) {
  char tmp[65536];
  while (true) {
    size_t end = buf.find("\r\n\r\n");
    if (end != std::string::npos) {
      *head = buf.substr(0, end + 4);
      buf.erase(0, end + 4);
      return true;
    }
    ssize_t r = recv(fd, tmp, sizeof(tmp), 0);
    if (r <= 0) return false;
    buf.append(tmp, static_cast<size_t>(r));
  }
}

bool ReadExact(int fd, std::string& buf, size_t n, std::string* out) {
  char tmp[65536];
  while (buf.size() < n) {
    ssize_t r = recv(fd, tmp, sizeof(tmp), 0);
    if (r <= 0) return false;
    buf.append(tmp, static_cast<size_t>(r));
  }
  *out = buf.substr(0, n);
  buf.erase(0, n);
  return true;
}

std::string HeaderValue(const std::string& head, const std::string& name) {
  std::istringstream in(head);
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    for (auto& c : k)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (k == name) {
      std::string v = line.substr(colon + 1);
      while (!v.empty() && (v.front() == ' ')) v.erase(0, 1);
      while (!v.empty() && (v.back() == '\r' || v.back() == ' ')) v.pop_back();
      return v;
    }
  }
  return "";
}

}  // namespace ckpt
