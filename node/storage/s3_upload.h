// One object's upload to S3: a WritableFile that sends the bytes as one
// PUT below s3.multipart_threshold and as a multipart upload past it, with
// s3.parts_in_flight parts in flight, and the integrity headers s3.checksum
// asks for. Thread-compatible (one writer); its parts upload on workers.
#ifndef CKPTBENCH_NODE_STORAGE_S3_UPLOAD_H_
#define CKPTBENCH_NODE_STORAGE_S3_UPLOAD_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "node/storage/s3_client.h"
#include "node/storage/storage.h"

namespace ckpt {

std::unique_ptr<WritableFile> NewS3Upload(std::shared_ptr<S3Client> client,
                                          S3Location loc);

// Sends a call that uploads bytes (PUT or part) with the integrity header
// s3.checksum asks for; see the definition.
absl::StatusOr<HttpResponse> SendS3Bytes(S3Client& client, S3Call call,
                                         const std::string& what,
                                         std::string* crc = nullptr);

// "s3://bucket/key", for errors.
std::string S3Where(const S3Location& loc);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_S3_UPLOAD_H_
