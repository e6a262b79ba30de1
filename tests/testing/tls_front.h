// nginx (Debian nginx-light) terminating TLS on loopback in front of a
// plain-HTTP upstream, with a throwaway CA, for testing HTTPS clients
// against a real TLS server. One process (master_process off), killed on
// destruction.
#ifndef CKPTBENCH_TESTS_TESTING_TLS_FRONT_H_
#define CKPTBENCH_TESTS_TESTING_TLS_FRONT_H_

#include <memory>
#include <string>
#include <vector>

#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {

class TlsFront {
 public:
  // The certificate names `dns_names` and 127.0.0.1. The Host header is
  // passed through unchanged (SigV4 signs it).
  TlsFront(int upstream_port, const std::vector<std::string>& dns_names);
  ~TlsFront();
  // "" when serving, else what went wrong.
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  std::string ca_file() const { return dir_.Sub("ca.pem"); }

 private:
  TempDir dir_;
  int port_ = -1;
  std::string error_;
  std::unique_ptr<Process> nginx_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_TLS_FRONT_H_
