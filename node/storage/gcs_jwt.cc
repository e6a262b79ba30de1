#include "node/storage/gcs_jwt.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/text.h"

namespace ckpt {

absl::StatusOr<std::string> SignJwtRs256(std::string_view header_json,
                                         std::string_view claims_json,
                                         const std::string& private_key_pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(private_key_pem.data(),
                      static_cast<int>(private_key_pem.size())),
      BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
          : nullptr,
      EVP_PKEY_free);
  if (!key) {
    return absl::InvalidArgumentError(
        "the private_key is not a PEM private key OpenSSL can read");
  }
  if (EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA) {
    return absl::InvalidArgumentError(
        "the private_key is not an RSA key (RS256 needs one)");
  }
  const std::string input =
      absl::StrCat(Base64Encode(header_json, Base64Alphabet::kUrl), ".",
                   Base64Encode(claims_json, Base64Alphabet::kUrl));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                              EVP_MD_CTX_free);
  size_t len = 0;
  if (!ctx ||
      EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr,
                         key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len,
                     reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) != 1) {
    return absl::InternalError("RS256 signing could not start");
  }
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()),
                     &len, reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) != 1) {
    return absl::InternalError("RS256 signing failed");
  }
  sig.resize(len);
  return absl::StrCat(input, ".", Base64Encode(sig, Base64Alphabet::kUrl));
}

}  // namespace ckpt
