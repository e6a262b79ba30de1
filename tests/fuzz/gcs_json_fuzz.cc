// libFuzzer target: the GCS JSON API answers as the gs backend reads them
// (object resources, list pages, error bodies, token replies).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "node/storage/gcs_client.h"
#include "node/storage/gcs_credentials.h"
#include "node/storage/gcs_storage.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  (void)ckpt::ParseGcsObjectInfo(body, "gs://b/o");
  std::vector<std::string> names;
  std::string token;
  (void)ckpt::ParseGcsListPage(body, "gs://b/p", &names, &token);
  (void)ckpt::GcsErrorDetail(body);
  (void)ckpt::ParseGsUri(body);
  for (int status : {200, 400}) {
    ckpt::HttpResponse rep;
    rep.status = status;
    rep.body = body;
    (void)ckpt::ParseTokenReply(rep, "https://oauth2.example/token", "fuzz");
  }
  return 0;
}
