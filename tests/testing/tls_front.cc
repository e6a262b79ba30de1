#include "tests/testing/tls_front.h"

#include <unistd.h>

#include <fstream>

#include "tests/testing/certs.h"
#include "tests/testing/http_wire.h"

namespace ckpt {

TlsFront::TlsFront(int upstream_port,
                   const std::vector<std::string>& dns_names) {
  const std::string d = dir_.path();
  std::string san = "subjectAltName=IP:127.0.0.1";
  for (const auto& n : dns_names) san += ",DNS:" + n;
  if (!MakeCa(d, "ca") ||
      !MakeCert(d, "ca", "server", san + "\nextendedKeyUsage=serverAuth\n")) {
    error_ = "openssl could not make the test certificates";
    return;
  }
  port_ = FreePort();
  std::ofstream(dir_.Sub("nginx.conf"))
      << "daemon off;\nmaster_process off;\npid " << d << "/nginx.pid;\n"
      << "error_log " << d << "/error.log warn;\nevents {}\nhttp {\n"
      << "  access_log off;\n"
      << "  client_body_temp_path " << d << "/body;\n"
      << "  proxy_temp_path " << d << "/proxy;\n"
      << "  fastcgi_temp_path " << d << "/fastcgi;\n"
      << "  uwsgi_temp_path " << d << "/uwsgi;\n"
      << "  scgi_temp_path " << d << "/scgi;\n"
      << "  server {\n"
      << "    listen 127.0.0.1:" << port_ << " ssl;\n"
      << "    ssl_certificate " << d << "/server.pem;\n"
      << "    ssl_certificate_key " << d << "/server.key;\n"
      << "    client_max_body_size 0;\n"
      << "    proxy_request_buffering off;\n"
      << "    proxy_buffering off;\n"
      << "    proxy_http_version 1.1;\n"
      << "    location / {\n"
      << "      proxy_pass http://127.0.0.1:" << upstream_port << ";\n"
      << "      proxy_set_header Host $http_host;\n"
      << "      proxy_set_header Connection \"\";\n"
      << "    }\n  }\n}\n";
  nginx_ = std::make_unique<Process>(
      std::vector<std::string>{"/usr/sbin/nginx", "-e", d + "/error.log", "-p",
                               d, "-c", d + "/nginx.conf"},
      std::map<std::string, std::string>{});
  for (int i = 0; i < 100; ++i) {
    if (int fd = ConnectLoopback(port_); fd >= 0) {
      close(fd);
      return;
    }
    if (nginx_->Wait(0.1) >= 0) break;
  }
  error_ =
      "nginx did not start: " + nginx_->Err() + ReadFile(dir_.Sub("error.log"));
}

TlsFront::~TlsFront() { nginx_.reset(); }

}  // namespace ckpt
