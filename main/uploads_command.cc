// `ckptbench uploads s3://BUCKET/PREFIX [--abort]`: the unfinished
// multipart uploads under a prefix a user names (a step a killed run left,
// say), listed, and with --abort aborted. Credentials and s3.* settings
// come from the same sources as `run`.
#include <cstdio>

#include "absl/strings/str_format.h"
#include "common/config.h"
#include "main/commands.h"
#include "main/run_support.h"
#include "node/storage/s3_storage.h"
#include "node/storage/storage_factory.h"

namespace ckpt {

int UploadsCommand(const CliArgs& args) {
  if (args.positional.size() != 1 ||
      args.positional[0].rfind("s3://", 0) != 0) {
    std::fprintf(stderr,
                 "ckptbench uploads: expected one s3://BUCKET/PREFIX (e.g. a "
                 "run's .../checkpoints/step-3)\n");
    return 2;
  }
  auto loaded = LoadConfigFromArgs(args);
  if (!loaded.ok()) {
    std::fprintf(stderr, "ckptbench: %s\n",
                 std::string(loaded.status().message()).c_str());
    return 2;
  }
  const std::string& uri = args.positional[0];
  auto loc = ParseS3Uri(uri);
  auto storage = OpenStorage(uri, StorageOptionsOf(loaded->config));
  if (!loc.ok() || !storage.ok()) {
    std::fprintf(
        stderr, "ckptbench uploads: %s\n",
        std::string((loc.ok() ? storage.status() : loc.status()).message())
            .c_str());
    return 2;
  }
  auto* s3 = dynamic_cast<S3Storage*>(storage->storage.get());
  if (s3 == nullptr) {
    std::fprintf(stderr, "ckptbench uploads: %s is not on S3\n", uri.c_str());
    return 2;
  }
  auto uploads = s3->ListUploads(loc->bucket, loc->key);
  if (!uploads.ok()) {
    std::fprintf(stderr, "ckptbench uploads: %s\n",
                 std::string(uploads.status().message()).c_str());
    return 1;
  }
  int failed = 0;
  for (const auto& u : *uploads) {
    std::string outcome;
    if (args.abort) {
      absl::Status s = s3->AbortUpload(loc->bucket, u);
      outcome =
          s.ok() ? "  aborted" : absl::StrCat("  NOT aborted: ", s.message());
      failed += s.ok() ? 0 : 1;
    }
    std::printf("s3://%s/%s  %s  %s%s\n", loc->bucket.c_str(), u.key.c_str(),
                u.upload_id.c_str(), u.initiated.c_str(), outcome.c_str());
  }
  std::fprintf(stderr, "%zu unfinished upload(s) under %s%s\n", uploads->size(),
               uri.c_str(),
               args.abort ? absl::StrFormat(", %d not aborted", failed).c_str()
                          : " (--abort aborts them)");
  return failed > 0 ? 1 : 0;
}

}  // namespace ckpt
