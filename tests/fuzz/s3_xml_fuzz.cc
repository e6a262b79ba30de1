// libFuzzer target: the S3 XML answers as the S3 backend reads them
// (error codes and messages, ListObjectsV2 keys, prefixes and tokens,
// ListMultipartUploads uploads, CreateMultipartUpload's UploadId).
#include <cstddef>
#include <cstdint>
#include <string>

#include "node/storage/s3_client.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  for (const char* tag : {"Code", "Message", "UploadId", "IsTruncated",
                          "NextContinuationToken", "NextKeyMarker"}) {
    (void)ckpt::XmlValue(xml, tag);
  }
  for (const auto& upload : ckpt::XmlValues(xml, "Upload")) {
    (void)ckpt::XmlValue(upload, "Key");
    (void)ckpt::XmlValue(upload, "UploadId");
  }
  (void)ckpt::XmlValues(xml, "Key");
  (void)ckpt::XmlValues(xml, "Prefix");
  (void)ckpt::ParseS3Uri(xml);
  return 0;
}
