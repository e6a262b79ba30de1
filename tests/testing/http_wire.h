// Bits of HTTP/1.1 on raw sockets shared by the test servers.
#ifndef CKPTBENCH_TESTS_TESTING_HTTP_WIRE_H_
#define CKPTBENCH_TESTS_TESTING_HTTP_WIRE_H_

#include <cstddef>
#include <string>

namespace ckpt {

// A socket listening on 127.0.0.1 at a port the kernel picks (*port).
int ListenLoopback(int* port);
// A TCP connection to 127.0.0.1:port; -1 if refused.
int ConnectLoopback(int port);
bool SendAll(int fd, const char* p, size_t n);
// Reads until the blank line ending a head; leftover bytes stay in `buf`.
bool ReadHead(int fd, std::string& buf, std::string* head);
// Reads exactly n bytes (after what `buf` already holds).
bool ReadExact(int fd, std::string& buf, size_t n, std::string* out);
// Value of header `name` (lowercase) in a head; "" if absent.
std::string HeaderValue(const std::string& head, const std::string& name);

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_HTTP_WIRE_H_
