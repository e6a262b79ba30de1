#include "node/storage/posix_cold_read.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"

namespace ckpt {

// The mount holding `path` (longest mount-point prefix in mountinfo).
FilesystemInfo MountOf(const std::string& path) {
  FilesystemInfo info;
  std::error_code ec;
  std::string abs = std::filesystem::weakly_canonical(path, ec).string();
  if (ec) abs = path;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  size_t best = 0;
  while (std::getline(in, line)) {
    // id parent major:minor root mountpoint options ... - fstype source
    // superopts
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    if (f.size() < 10) continue;
    const std::string& mp = f[4];
    bool prefix = abs == mp || mp == "/" ||
                  (abs.rfind(mp, 0) == 0 && abs.size() > mp.size() &&
                   abs[mp.size()] == '/');
    if (!prefix || mp.size() < best) continue;
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 1 >= f.size()) continue;  // no fstype after "-"
    best = mp.size();
    info.mount_point = mp;
    info.type = f[dash + 1];
    info.options = f[5];
    if (dash + 3 < f.size()) absl::StrAppend(&info.options, ",", f[dash + 3]);
  }
  return info;
}

namespace {

// What a cold read on a FUSE mount can and cannot promise.
std::string FuseCacheNote(const std::string& path, uint64_t resident,
                          bool asked_direct) {
  std::string note =
      "FUSE mount: the kernel page cache was evicted; the FUSE daemon's own "
      "caches (s3fs use_cache, gcsfuse file cache, mountpoint-s3 --cache) "
      "are not, so mount without them for cold reads";
  const std::string opts = MountOf(path).options;
  if (opts.find("use_cache") != std::string::npos)
    note += "; this mount has use_cache: loads may be served from disk";
  if (resident > 0)
    absl::StrAppend(&note, "; ", resident,
                    " bytes stayed resident (no O_DIRECT fallback on FUSE)");
  if (asked_direct) note += "; io.cache_mode=direct is not used on FUSE";
  return note;
}

// What of `paths` is still in the page cache, into `report`.
absl::Status Measure(const std::vector<std::string>& paths,
                     CacheReport* report) {
  report->resident_bytes = 0;
  report->checked_bytes = 0;
  for (const auto& p : paths) {
    uint64_t size = 0;
    ASSIGN_OR_RETURN(uint64_t r, ResidentBytes(p, &size));
    report->resident_bytes += r;
    report->checked_bytes += size;
  }
  return absl::OkStatus();
}

// Where the eviction probe of a load of `first` runs: in checkpoints/, not
// inside a (committed) step, so a crash between the probe's create and
// unlink leaves no stray file in a step.
std::string ProbeDir(const std::string& first) {
  std::filesystem::path step = std::filesystem::path(first).parent_path();
  std::string dir =
      step.has_parent_path() ? step.parent_path().string() : step.string();
  if (dir.empty()) dir.assign(1, '.');  // (= "." trips GCC 12 -Wrestrict)
  return dir;
}

// io.cache_mode=auto where fadvise cannot evict (overlayfs right after a
// write): O_DIRECT if the probe could read with it, else nothing works.
void ChooseWithoutEviction(const EvictionProbe& probe, CacheReport* report) {
  if (probe.direct_reads) {
    report->method = CacheMethod::kODirect;
    report->note =
        absl::StrCat("fadvise(DONTNEED) does not evict on ", probe.fs_type,
                     " (probe: ", report->probe, "); reading with O_DIRECT");
  } else {
    report->method = CacheMethod::kNone;
    report->note = absl::StrCat(
        "neither fadvise(DONTNEED) nor O_DIRECT can keep reads cold on ",
        probe.fs_type, " (probe: ", report->probe,
        "): loads may be served by the page cache");
  }
}

}  // namespace

void SettleResidue(CacheMode mode, DirectFallback direct, CacheReport* report) {
  if (report->resident_bytes == 0 ||
      (mode != CacheMode::kAuto && mode != CacheMode::kDirect)) {
    return;  // none left, or the method asked for: the residue says itself
  }
  const std::string left =
      absl::StrCat(std::string(Name(report->method)), " left ",
                   report->resident_bytes, " bytes cached");
  if (direct == DirectFallback::kAvailable && mode == CacheMode::kAuto) {
    report->note = absl::StrCat(left, "; reading with O_DIRECT");
    report->method = CacheMethod::kODirect;
    return;
  }
  // The reads go through the page cache: the method stays what evicted,
  // and the coordinator flags what stayed.
  if (!report->note.empty()) report->note += "; ";
  absl::StrAppend(&report->note, left,
                  ", and these reads cannot use O_DIRECT: they may be served "
                  "by the page cache");
}

absl::StatusOr<CacheReport> PrepareColdReadOnPosix(
    const std::vector<std::string>& paths, CacheMode mode,
    DirectFallback direct, bool fuse, EvictionProbes& probes) {
  CacheReport report;
  const bool can_direct = direct == DirectFallback::kAvailable;
  auto measure = [&] { return Measure(paths, &report); };
  if (mode == CacheMode::kNone) {
    report.method = CacheMethod::kNone;
    RETURN_IF_ERROR(measure());
    return report;
  }
  // Once per file system: can fadvise evict here, is it memory-backed, do
  // O_DIRECT reads work? Decided before any eviction, recorded in results.
  EvictionProbe probe;
  if (!fuse && !paths.empty()) {
    const std::string dir = ProbeDir(paths.front());
    probe = probes.Once(dir, MountOf(dir).type);
    report.probe = probe.Describe();
  }
  if (probe.memory_backed) {
    report.method = CacheMethod::kMemory;
    report.note = absl::StrCat(
        probe.fs_type,
        " keeps every file in RAM: loads here are never cold (not with "
        "O_DIRECT either); put CKPT_DIR_PATH on a disk to measure storage");
    RETURN_IF_ERROR(measure());
    return report;
  }
  if (mode == CacheMode::kDirect && !fuse && can_direct) {
    report.method = CacheMethod::kODirect;
    RETURN_IF_ERROR(measure());
    return report;
  }
  if (mode == CacheMode::kDrop && !CanDropCaches()) {
    return absl::PermissionDeniedError(
        "io.cache_mode=drop: /proc/sys/vm/drop_caches is not writable (needs "
        "root, and is read-only in containers); expected fadvise or direct");
  }
  bool drop = mode == CacheMode::kDrop ||
              ((mode == CacheMode::kAuto || mode == CacheMode::kDirect) &&
               CanDropCaches());
  // fadvise cannot evict on this file system (overlayfs right after a
  // write): choose O_DIRECT up front rather than after a failed eviction,
  // where the reads can use it.
  if (!drop && mode == CacheMode::kAuto && probe.error.empty() && !fuse &&
      !probe.fadvise_evicts && can_direct) {
    RETURN_IF_ERROR(measure());
    ChooseWithoutEviction(probe, &report);
    return report;
  }
  if (drop) {
    RETURN_IF_ERROR(DropCaches());
    report.method = CacheMethod::kDropCaches;
  } else {
    for (const auto& p : paths) RETURN_IF_ERROR(FadviseDontNeed(p));
    report.method = CacheMethod::kFadviseDontneed;
  }
  RETURN_IF_ERROR(measure());
  if (fuse) {
    report.note =
        FuseCacheNote(paths.empty() ? "" : paths.front(), report.resident_bytes,
                      mode == CacheMode::kDirect);
    return report;
  }
  if (mode == CacheMode::kDirect) {
    report.note = absl::StrCat(
        "io.cache_mode=direct: these reads cannot use O_DIRECT; evicted with ",
        std::string(Name(report.method)), " instead");
  }
  SettleResidue(mode, direct, &report);
  return report;
}

}  // namespace ckpt
