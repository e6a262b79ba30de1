#include "coordinator/claimed_make.h"

#include "absl/strings/str_cat.h"
#include "common/dataset/dataset_manifest.h"
#include "common/error_kind.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/storage_commands.h"
#include "coordinator/round/round_protocol.h"

namespace ckpt {
namespace {

absl::StatusOr<PutResultOutcome> Put(NodeClient& node, PutResultJob job,
                                     const BackendOptions& backend,
                                     const std::string& what) {
  job.backend = backend;
  absl::StatusOr<PutResultOutcome> done = node.PutResult(job);
  if (done.ok()) return done;
  return StatusOfKind(NodeErrorKindOf(done.status()),
                      NodeError(node, what, done.status().message()));
}

}  // namespace

absl::Status ReleaseClaimOn(NodeClient& node, const std::string& uri,
                            const BackendOptions& backend,
                            std::string_view thing) {
  PutResultJob release;
  release.dir_uri = uri;
  release.release_claim = true;
  return Put(node, release, backend,
             absl::StrCat("releasing ", std::string(thing), "'s claim"))
      .status();
}

absl::Status CommitUnderClaim(NodeClient& node, const std::string& uri,
                              const std::string& manifest_name,
                              const std::string& text,
                              const BackendOptions& backend,
                              std::string_view thing,
                              std::string_view removal) {
  const std::string what(thing);
  PutResultJob check;
  check.dir_uri = JoinPath(uri, kMakeClaimDir);
  check.name = kPendingManifestName;
  check.check_only = true;
  ASSIGN_OR_RETURN(
      const PutResultOutcome held,
      Put(node, check, backend, absl::StrCat("checking ", what, "'s claim")));
  if (!held.exists) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the claim of ", uri, " (", kMakeClaimDir,
        ") went while this run made ", what, ": ", std::string(removal),
        " ran meanwhile; no manifest is written"));
  }
  PutResultJob manifest;
  manifest.dir_uri = uri;
  manifest.name = manifest_name;
  manifest.data = text;
  manifest.overwrite = true;
  RETURN_IF_ERROR(Put(node, manifest, backend,
                      absl::StrCat("writing ", what, "'s manifest"))
                      .status());
  return ReleaseClaimOn(node, uri, backend, thing);
}

}  // namespace ckpt
