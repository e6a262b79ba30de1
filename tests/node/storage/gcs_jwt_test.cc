// RS256 JWTs: base64url against RFC 7515's example, and signatures checked
// by the openssl command line (code nobody here wrote) with the public key.
#include "node/storage/gcs_jwt.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/text.h"
#include "tests/testing/base64url.h"
#include "tests/testing/certs.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

TEST(Jwt, Base64UrlMatchesRfc7515) {
  // RFC 7515 appendix C: octets 3, 236, 255, 224, 193 -> "A-z_4ME".
  const std::string octets = {3, static_cast<char>(236), static_cast<char>(255),
                              static_cast<char>(224), static_cast<char>(193)};
  EXPECT_EQ(Base64Encode(octets, Base64Alphabet::kUrl), "A-z_4ME");
  EXPECT_EQ(Base64Encode("", Base64Alphabet::kUrl), "");
  EXPECT_EQ(Base64Encode("f", Base64Alphabet::kUrl), "Zg");
  EXPECT_EQ(Base64Encode("fo", Base64Alphabet::kUrl), "Zm8");
  EXPECT_EQ(Base64Encode("foo", Base64Alphabet::kUrl), "Zm9v");
}

TEST(Jwt, Rs256SignatureVerifiesWithThePublicKeyUnderOpenssl) {
  TempDir t;
  // A service-account key file holds a PKCS#8 PEM RSA key.
  ASSERT_TRUE(MakeRsaKeyPair(t.path()));
  const std::string header = R"({"alg":"RS256","typ":"JWT","kid":"k1"})";
  const std::string claims =
      R"({"iss":"a@b.iam.gserviceaccount.com","aud":"https://oauth2.googleapis.com/token","iat":1,"exp":3601})";
  auto jwt = SignJwtRs256(header, claims, ReadFile(t.Sub("key.pem")));
  ASSERT_TRUE(jwt.ok()) << jwt.status();
  std::vector<std::string> parts = absl::StrSplit(*jwt, '.');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(Base64UrlDecode(parts[0]), header);
  EXPECT_EQ(Base64UrlDecode(parts[1]), claims);
  EXPECT_EQ(parts[2].find_first_of("+/="), std::string::npos);
  const std::string signed_text = parts[0] + "." + parts[1];
  const std::string signature = Base64UrlDecode(parts[2]);
  EXPECT_TRUE(OpensslVerifiesSha256(t.path(), signed_text, signature));
  // One changed byte of the signed text and it no longer verifies.
  EXPECT_FALSE(OpensslVerifiesSha256(t.path(), signed_text + " ", signature));
}

TEST(Jwt, UnreadableOrNonRsaKeyIsAClearErrorWithoutTheKey) {
  auto bad = SignJwtRs256("{}", "{}", "-----BEGIN PRIVATE KEY-----\nnot-a-key");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not a PEM private key"),
            std::string::npos);
  EXPECT_EQ(bad.status().message().find("not-a-key"), std::string::npos);
  TempDir t;
  ASSERT_EQ(RunProcess({"/bin/sh", "-c",
                        "openssl genpkey -algorithm EC -pkeyopt "
                        "ec_paramgen_curve:prime256v1 -out '" +
                            t.Sub("ec.pem") + "'"},
                       {})
                .exit_code,
            0);
  auto ec = SignJwtRs256("{}", "{}", ReadFile(t.Sub("ec.pem")));
  ASSERT_FALSE(ec.ok());
  EXPECT_NE(ec.status().message().find("not an RSA key"), std::string::npos);
}

}  // namespace
}  // namespace ckpt
