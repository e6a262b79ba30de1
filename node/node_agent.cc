// NodeAgent: the checkpoint's storage steps outside a phase: listing steps
// and reading a .metadata (Inspect), the commit point, claims, and
// cleanup.
#include "node/node_agent.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/fd_reserve.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"

namespace ckpt {

namespace {

// The directories of a file-system `path` that do not exist yet, deepest
// first: what CreateDirs will make. Empty for object stores (no dirs).
std::vector<std::string> MissingDirs(Storage& storage,
                                     const std::string& path) {
  std::vector<std::string> missing;
  if (path.find("://") != std::string::npos) return missing;
  std::string p = path;
  while (p.size() > 1) {
    auto exists = storage.Exists(p);
    if (exists.ok() && *exists) break;
    missing.push_back(p);
    const size_t slash = p.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    p = p.substr(0, slash);
  }
  return missing;
}

}  // namespace

absl::Status ProbeWrite(Storage& storage, const std::string& dir,
                        const std::string& owner) {
  // What this probe makes, it removes when the target turns out unusable
  // (a path too long, a directory not writable): nothing stays behind.
  const std::vector<std::string> made = MissingDirs(storage, dir);
  auto probe = [&]() -> absl::Status {
    RETURN_IF_ERROR(storage.CreateDirs(dir));
    // A name of this run's own: a concurrent run's probe is not ours.
    const std::string name = absl::StrCat(".ckptbench-write-probe-", owner);
    ASSIGN_OR_RETURN(auto f,
                     storage.OpenWrite(JoinPath(dir, name), WriteOptions{}));
    absl::Status written = f->Append("probe", 5);
    if (written.ok()) written = f->Close();
    absl::Status removed = storage.RemoveTree(JoinPath(dir, name));
    RETURN_IF_ERROR(written);
    return removed;
  };
  absl::Status s = probe();
  if (!s.ok()) {
    for (const auto& d : made) (void)storage.RemoveFiles(d, {});
  }
  return s;
}

absl::Status CheckClaimIsOurs(Storage& storage, const std::string& step_dir,
                              const std::string& run_id) {
  // A claim holds a run id: a few dozen bytes.
  constexpr uint64_t kMaxClaim = 4096;
  auto held = ReadAtMost(storage, JoinPath(step_dir, kClaimName), kMaxClaim);
  if (absl::IsNotFound(held.status())) return absl::OkStatus();
  if (!held.ok()) return held.status();
  if (*held == run_id) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      step_dir, " is claimed by '", EscapeForTerminal(held->substr(0, 64)),
      "', not this run (", run_id,
      "): the step was replaced since this run wrote it; nothing there was "
      "removed"));
}

NodeAgent::NodeAgent(std::shared_ptr<MemoryStore> memory)
    : storage_(std::move(memory)) {
  ReserveDescriptors(kCleanupDescriptors);
}

absl::StatusOr<StepListing> NodeAgent::Inspect(const std::string& uri,
                                               const std::string& probe_owner,
                                               bool want_metadata,
                                               uint64_t metadata_step,
                                               const BackendOptions& options) {
  ASSIGN_OR_RETURN(auto loc, storage_.Open(uri, options));
  StepListing listing;
  if (!probe_owner.empty()) {
    RETURN_IF_ERROR(ProbeWrite(*loc.storage, loc.path, probe_owner));
  }
  auto names = ListEntries(*loc.storage, loc.path);
  if (!names.ok()) {
    if (!absl::IsNotFound(names.status())) return names.status();
    if (want_metadata && metadata_step != 0) {
      return absl::NotFoundError(
          absl::StrCat(JoinPath(loc.path, StepDirName(metadata_step)),
                       ": not found (", names.status().message(), ")"));
    }
    return listing;
  }
  for (const auto& n : *names) {
    uint64_t step = ParseStepDir(n);
    if (step == 0) {
      if (IsStepPastTheBound(n)) listing.ignored.push_back(n);
      continue;
    }
    std::string meta = JoinPath(JoinPath(loc.path, n), kMetadataFile);
    ASSIGN_OR_RETURN(bool committed, loc.storage->Exists(meta));
    listing.steps.push_back({step, committed});
    if (committed && step > listing.newest_committed) {
      listing.newest_committed = step;
    }
  }
  std::sort(listing.steps.begin(), listing.steps.end());
  listing.metadata_step =
      metadata_step != 0 ? metadata_step : listing.newest_committed;
  if (want_metadata && listing.metadata_step > 0) {
    std::string meta = JoinPath(
        JoinPath(loc.path, StepDirName(listing.metadata_step)), kMetadataFile);
    // Capped: the largest plan ckptbench allows writes far less. Read
    // through the file opened for the size, not opened a second time.
    ASSIGN_OR_RETURN(auto f, loc.storage->OpenRead(meta, ReadOptions{}));
    if (f->Size() > kMaxMetadataBytes) {
      return absl::FailedPreconditionError(absl::StrCat(
          meta, " is ", FormatBytes(f->Size()), ", more than the ",
          FormatBytes(kMaxMetadataBytes),
          " a ckptbench .metadata can be: not one of its checkpoints"));
    }
    ASSIGN_OR_RETURN(listing.newest_metadata, ReadWhole(*f, meta));
    RETURN_IF_ERROR(f->Close());
  }
  return listing;
}

absl::Status NodeAgent::Commit(const std::string& step_uri,
                               const std::string& metadata,
                               const BackendOptions& options) {
  return WriteFile(step_uri, kMetadataFile, metadata, options);
}

absl::Status NodeAgent::WriteFile(const std::string& dir_uri,
                                  const std::string& name,
                                  const std::string& data,
                                  const BackendOptions& options,
                                  LocationRoot root) {
  ASSIGN_OR_RETURN(auto loc, storage_.Open(dir_uri, options, root));
  return loc.storage->WriteAtomic(JoinPath(loc.path, name), data);
}

absl::StatusOr<bool> NodeAgent::FileExists(const std::string& dir_uri,
                                           const std::string& name,
                                           const BackendOptions& options) {
  ASSIGN_OR_RETURN(auto loc, storage_.Open(dir_uri, options));
  return loc.storage->Exists(JoinPath(loc.path, name));
}

absl::StatusOr<std::string> NodeAgent::Claim(const std::string& uri,
                                             uint64_t step,
                                             const std::string& owner,
                                             const BackendOptions& options) {
  ASSIGN_OR_RETURN(auto loc, storage_.Open(uri, options));
  return loc.storage->ClaimDir(JoinPath(loc.path, StepDirName(step)), owner);
}

absl::Status NodeAgent::ReleaseClaim(const std::string& uri, uint64_t step,
                                     const std::string& claim_name,
                                     const BackendOptions& options) {
  if (claim_name.empty() || claim_name.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "release of step ", step, ": bad claim name '", claim_name, "'"));
  }
  ASSIGN_OR_RETURN(auto loc, storage_.Open(uri, options));
  return loc.storage->RemoveFiles(JoinPath(loc.path, StepDirName(step)),
                                  {claim_name});
}

absl::Status NodeAgent::Cleanup(const std::string& uri,
                                const std::vector<uint64_t>& steps,
                                const std::vector<std::string>& names,
                                const BackendOptions& options,
                                bool abort_uploads, int* aborted,
                                const std::string& run_id) {
  // A save that failed for want of descriptors must not leave its uploads
  // and objects behind for the same reason: the reserve is this chance.
  DescriptorReserveRelease reserve;
  ASSIGN_OR_RETURN(auto loc, storage_.Open(uri, options));
  for (uint64_t s : steps) {
    if (!run_id.empty()) {
      RETURN_IF_ERROR(CheckClaimIsOurs(
          *loc.storage, JoinPath(loc.path, StepDirName(s)), run_id));
    }
    if (abort_uploads) {
      ASSIGN_OR_RETURN(int n, loc.storage->AbortUploads(
                                  JoinPath(loc.path, StepDirName(s)), names));
      if (aborted) *aborted += n;
    }
    // Commit point first: a half-removed step must not look committed.
    std::vector<std::string> ordered{kMetadataFile};
    for (const auto& n : names) {
      if (n != kMetadataFile) ordered.push_back(n);
    }
    RETURN_IF_ERROR(
        loc.storage->RemoveFiles(JoinPath(loc.path, StepDirName(s)), ordered));
  }
  return absl::OkStatus();
}

}  // namespace ckpt
