// SigV4 against AWS's worked S3 examples (sig-v4-header-based-auth), as
// recorded in shared/FACTS-OBJECT-STORES.md section 1.
#include "node/storage/s3_sigv4.h"

#include <gtest/gtest.h>

namespace ckpt {
namespace {

const AwsCredentials kCreds{"AKIAIOSFODNN7EXAMPLE",
                            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "", 0,
                            "test"};
constexpr char kDate[] = "20130524T000000Z";
constexpr char kHost[] = "examplebucket.s3.amazonaws.com";

std::string Header(const SigV4Signed& s, const std::string& name) {
  for (const auto& [k, v] : s.headers) {
    if (k == name) return v;
  }
  return "";
}

TEST(SigV4, GetObjectWithRange) {
  SigV4Request r{"GET",       kHost, "/test.txt", {}, {{"Range", "bytes=0-9"}},
                 kEmptySha256};
  SigV4Signed s = SignV4(r, kCreds, "us-east-1", kDate);
  EXPECT_EQ(Sha256Hex(s.canonical_request.data(), s.canonical_request.size()),
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(s.signature,
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(
      Header(s, "Authorization"),
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
      "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
      "Signature="
      "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4, PutObjectEncodesDollarAndSignsExtraHeaders) {
  std::string body = "Welcome to Amazon S3.";
  SigV4Request r{"PUT",
                 kHost,
                 "/test$file.text",
                 {},
                 {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                  {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
                 Sha256Hex(body.data(), body.size())};
  SigV4Signed s = SignV4(r, kCreds, "us-east-1", kDate);
  EXPECT_EQ(s.path, "/test%24file.text");
  EXPECT_EQ(s.signature,
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4, ValuelessQueryParameter) {
  SigV4Request r{"GET", kHost, "/", {{"lifecycle", ""}}, {}, kEmptySha256};
  SigV4Signed s = SignV4(r, kCreds, "us-east-1", kDate);
  EXPECT_EQ(s.query, "lifecycle=");
  EXPECT_EQ(s.signature,
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4, QuerySortedAndEncoded) {
  SigV4Request r{"GET", kHost,       "/", {{"prefix", "J"}, {"max-keys", "2"}},
                 {},    kEmptySha256};
  SigV4Signed s = SignV4(r, kCreds, "us-east-1", kDate);
  EXPECT_EQ(s.query, "max-keys=2&prefix=J");
  EXPECT_EQ(s.signature,
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4, SessionTokenIsSigned) {
  AwsCredentials c = kCreds;
  c.session_token = "token/with+chars";
  SigV4Request r{"GET", kHost, "/test.txt", {}, {}, kEmptySha256};
  SigV4Signed s = SignV4(r, c, "us-east-1", kDate);
  EXPECT_EQ(Header(s, "x-amz-security-token"), "token/with+chars");
  EXPECT_NE(Header(s, "Authorization").find("x-amz-security-token"),
            std::string::npos);
}

TEST(UriEncode, S3Rules) {
  EXPECT_EQ(UriEncode("a b/c~d.e_f-g", false), "a%20b/c~d.e_f-g");
  EXPECT_EQ(UriEncode("a/b=c", true), "a%2Fb%3Dc");
  EXPECT_EQ(UriEncode("\xc3\xa9", false), "%C3%A9");
}

}  // namespace
}  // namespace ckpt
