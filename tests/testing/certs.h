// Throwaway certificates made with the openssl command line (EC P-256,
// valid 2 days), for TLS tests.
#ifndef CKPTBENCH_TESTS_TESTING_CERTS_H_
#define CKPTBENCH_TESTS_TESTING_CERTS_H_

#include <string>

namespace ckpt {

// Makes <dir>/<ca>.pem and <ca>.key, a self-signed CA. False on failure.
bool MakeCa(const std::string& dir, const std::string& ca);

// Makes <dir>/<name>.pem and <name>.key signed by CA `ca`, with the
// extension lines `ext` (e.g. "subjectAltName=DNS:localhost\n").
bool MakeCert(const std::string& dir, const std::string& ca,
              const std::string& name, const std::string& ext);

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_CERTS_H_
