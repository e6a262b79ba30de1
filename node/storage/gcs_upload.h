// Uploads to GCS (the gs backend's WritableFile and single-request
// upload), see gcs_storage.h for the whole picture.
#ifndef CKPTBENCH_NODE_STORAGE_GCS_UPLOAD_H_
#define CKPTBENCH_NODE_STORAGE_GCS_UPLOAD_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "node/storage/gcs_client.h"
#include "node/storage/storage.h"

namespace ckpt {

// Uploads `len` bytes as one object in one multipart request whose
// metadata carries their CRC32C (`crc` when the caller has it, else
// computed); the stored object's CRC32C and size must match. Objects
// appear whole or not at all. `preconditions` go into the query as they
// are (e.g. ifGenerationMatch=0: only if no such object exists).
absl::Status UploadInOneRequest(GcsClient& client, const GcsObject& obj,
                                const char* data, size_t len,
                                std::optional<uint32_t> crc = std::nullopt,
                                const HeaderList& preconditions = {});

std::unique_ptr<WritableFile> NewGcsWritableFile(
    std::shared_ptr<GcsClient> client, GcsObject obj);

// "<name>.parts/<k>": where composite part k of an object goes until the
// compose; deleted after it, and on failure.
std::string CompositePartName(const std::string& name, int k);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_GCS_UPLOAD_H_
