#include "tests/testing/certs.h"

#include <fstream>

#include "tests/testing/subprocess.h"

namespace ckpt {
namespace {

bool Openssl(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "/usr/bin/openssl");
  std::vector<std::string> argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"",
                                   dir};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, {}).exit_code == 0;
}

}  // namespace

bool MakeCa(const std::string& dir, const std::string& ca) {
  return Openssl(
      dir, {"req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", ca + ".key",
            "-out", ca + ".pem", "-days", "2", "-subj", "/CN=" + ca});
}

bool MakeCert(const std::string& dir, const std::string& ca,
              const std::string& name, const std::string& ext) {
  std::ofstream(dir + "/" + name + ".ext") << ext;
  return Openssl(dir, {"req", "-newkey", "ec", "-pkeyopt",
                       "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                       name + ".key", "-out", name + ".csr", "-subj",
                       "/CN=" + name}) &&
         Openssl(dir, {"x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem",
                       "-CAkey", ca + ".key", "-CAcreateserial", "-out",
                       name + ".pem", "-days", "2", "-extfile", name + ".ext"});
}

bool MakeRsaKeyPair(const std::string& dir) {
  return Openssl(dir, {"genpkey", "-algorithm", "RSA", "-pkeyopt",
                       "rsa_keygen_bits:2048", "-out", "key.pem"}) &&
         Openssl(dir, {"pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem"});
}

bool OpensslVerifiesSha256(const std::string& dir, const std::string& data,
                           const std::string& signature) {
  std::ofstream(dir + "/signed", std::ios::binary) << data;
  std::ofstream(dir + "/sig", std::ios::binary) << signature;
  auto r = RunProcess({"/bin/sh", "-c",
                       "cd \"$0\" && exec /usr/bin/openssl dgst -sha256 "
                       "-verify pub.pem -signature sig signed",
                       dir},
                      {});
  return r.exit_code == 0 && r.out.find("Verified OK") != std::string::npos;
}

}  // namespace ckpt
