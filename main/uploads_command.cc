// `ckptbench uploads s3://BUCKET/PREFIX [--abort]`: the unfinished
// multipart uploads under a prefix a user names (a step a killed run left,
// say), listed, and with --abort aborted. Credentials and s3.* settings
// come from the same sources as `run`.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "common/config.h"
#include "common/log.h"
#include "common/names.h"
#include "common/text.h"
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
    PrintError(std::string(loaded.status().message()));
    return 2;
  }
  const std::string& uri = args.positional[0];
  auto loc = ParseS3Uri(uri);
  auto storage = OpenStorage(uri, BackendOptionsOf(loaded->config));
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
  // The URI names a directory (or one object): an upload belongs to it
  // when its key is that key or lies beneath it, component by component.
  // ListMultipartUploads' prefix is a bare string, so .../step-1 would
  // also list .../step-10/...: those are another step's, maybe a running
  // save's, and never touched.
  std::string dir = loc->key;
  while (!dir.empty() && dir.back() == '/') dir.pop_back();
  auto uploads = s3->ListUploads(loc->bucket, dir);
  if (!uploads.ok()) {
    PrintError(std::string(uploads.status().message()), "ckptbench uploads: ");
    return 1;
  }
  std::vector<S3Upload> under;
  for (auto& u : *uploads) {
    if (!PathIsUnder(u.key, dir)) continue;
    // "step-3/../step-30/x" is under step-3 as a string, but an HTTP
    // client collapses its dot segments: the abort would go to step-30.
    if (absl::Status s = CheckRelativeName(u.key, "an upload's key"); !s.ok()) {
      PrintError(absl::StrCat(s.message(), ": left alone"),
                 "ckptbench uploads: ");
      continue;
    }
    under.push_back(std::move(u));
  }
  int failed = 0;
  for (const auto& u : under) {
    std::string outcome;
    if (args.abort) {
      absl::Status s = s3->AbortUpload(loc->bucket, u);
      outcome =
          s.ok() ? "  aborted" : absl::StrCat("  NOT aborted: ", s.message());
      failed += s.ok() ? 0 : 1;
    }
    // Keys, ids and dates are the server's: escaped before the terminal.
    std::printf(
        "%s\n",
        EscapeForTerminal(absl::StrCat("s3://", loc->bucket, "/", u.key, "  ",
                                       u.upload_id, "  ", u.initiated, outcome))
            .c_str());
  }
  PrintError(
      absl::StrCat(under.size(), " unfinished upload(s) under ", uri,
                   args.abort ? absl::StrFormat(", %d not aborted", failed)
                              : std::string(" (--abort aborts them)")),
      "");
  return failed > 0 ? 1 : 0;
}

}  // namespace ckpt
