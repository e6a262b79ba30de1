#include "common/grpc_tls.h"

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/secrets.h"

namespace ckpt {
namespace {

// A PEM certificate or key is a few KiB; a CA bundle (Debian's whole
// ca-certificates.crt) about 220 KiB. 4 MiB bounds what a wrong path (a
// FIFO, /dev/zero, a log) can cost.
constexpr uint64_t kMaxPemBytes = 4 << 20;

absl::StatusOr<std::string> ReadPem(const std::string& key,
                                    const std::string& env,
                                    const std::string& path) {
  auto pem =
      ReadRegularFile(path, kMaxPemBytes, absl::StrCat(key, " (", env, ")"));
  if (!pem.ok()) {
    if (absl::IsNotFound(pem.status())) {
      return absl::InvalidArgumentError(
          absl::StrCat(key, " (", env, ") = '", path,
                       "': cannot open the file (no such file or directory)"));
    }
    return absl::InvalidArgumentError(pem.status().message());
  }
  if (pem->find("-----BEGIN ") == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, " (", env, ") = '", path, "': expected a PEM file"));
  }
  return *std::move(pem);
}

struct KeyPair {
  std::string cert, key;
};

// tls.cert and tls.key, both or neither.
absl::StatusOr<KeyPair> ReadKeyPair(const ControlOptions& c) {
  if (c.tls_cert.empty() || c.tls_key.empty()) {
    return absl::InvalidArgumentError(
        "tls.cert (CKPT_TLS_CERT) and tls.key (CKPT_TLS_KEY) must be set "
        "together");
  }
  auto cert = ReadPem("tls.cert", "CKPT_TLS_CERT", c.tls_cert);
  if (!cert.ok()) return cert.status();
  auto key = ReadPem("tls.key", "CKPT_TLS_KEY", c.tls_key);
  if (!key.ok()) return key.status();
  RegisterSecret(*key);
  return KeyPair{*cert, *key};
}

}  // namespace

absl::StatusOr<ServerTls> MakeServerCredentials(const ControlOptions& c) {
  ServerTls out;
  if (c.tls_cert.empty() && c.tls_key.empty()) {
    if (!c.tls_ca.empty()) {
      return absl::InvalidArgumentError(
          "tls.ca (CKPT_TLS_CA) is set but tls.cert / tls.key are not: the "
          "coordinator needs its own certificate to serve TLS");
    }
    out.credentials = grpc::InsecureServerCredentials();
    return out;
  }
  auto pair = ReadKeyPair(c);
  if (!pair.ok()) return pair.status();
  grpc::SslServerCredentialsOptions opts;
  opts.pem_key_cert_pairs.push_back({pair->key, pair->cert});
  if (!c.tls_ca.empty()) {
    auto ca = ReadPem("tls.ca", "CKPT_TLS_CA", c.tls_ca);
    if (!ca.ok()) return ca.status();
    opts.pem_root_certs = *ca;
    opts.client_certificate_request =
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
    out.mutual = true;
  }
  out.credentials = grpc::SslServerCredentials(opts);
  out.tls = true;
  return out;
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
MakeChannelCredentials(const ControlOptions& c) {
  if (c.tls_ca.empty() && c.tls_cert.empty() && c.tls_key.empty()) {
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions opts;
  if (!c.tls_ca.empty()) {
    auto ca = ReadPem("tls.ca", "CKPT_TLS_CA", c.tls_ca);
    if (!ca.ok()) return ca.status();
    opts.pem_root_certs = *ca;
  }
  if (!c.tls_cert.empty() || !c.tls_key.empty()) {
    auto pair = ReadKeyPair(c);
    if (!pair.ok()) return pair.status();
    opts.pem_cert_chain = pair->cert;
    opts.pem_private_key = pair->key;
  }
  return grpc::SslCredentials(opts);
}

}  // namespace ckpt
