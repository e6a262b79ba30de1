// Throwaway certificates (EC P-256, valid 2 days) and RSA keys made with
// the openssl command line, for TLS and JWT tests.
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

// Makes <dir>/key.pem (RSA 2048, PKCS#8, as in a service-account key
// file) and <dir>/pub.pem, its public key. False on failure.
bool MakeRsaKeyPair(const std::string& dir);

// Whether `signature` is an RSA SHA-256 signature of `data` under
// <dir>/pub.pem: `openssl dgst -verify` (code nobody here wrote) exits 0
// and prints "Verified OK".
bool OpensslVerifiesSha256(const std::string& dir, const std::string& data,
                           const std::string& signature);

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_CERTS_H_
