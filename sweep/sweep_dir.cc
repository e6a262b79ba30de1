#include "sweep/sweep_dir.h"

#include <ctime>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/config.h"
#include "common/files.h"
#include "common/json_utf8.h"
#include "common/log.h"
#include "coordinator/json_codec.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Bounds on what --resume reads back from a results directory.
constexpr uint64_t kMaxManifestBytes = 64ull << 20;
constexpr uint64_t kMaxResultBytes = 1ull << 30;

}  // namespace

// multirun/<date>/<time>, local time; a suffix if a sweep started in the
// same second.
std::string DefaultSweepDir() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char date[16], time[16];
  std::strftime(date, sizeof(date), "%Y-%m-%d", &tm);
  std::strftime(time, sizeof(time), "%H-%M-%S", &tm);
  std::string dir = absl::StrCat("multirun/", date, "/", time);
  std::string candidate = dir;
  for (int i = 1; fs::exists(candidate); ++i) {
    candidate = absl::StrCat(dir, "-", i);
  }
  return candidate;
}

// Refuses to resume into a directory made by a different sweep.
absl::Status CheckSameSweep(const std::string& manifest_path,
                            const json& manifest) {
  auto text =
      ReadRegularFile(manifest_path, kMaxManifestBytes, "sweep manifest");
  if (!text.ok()) {
    return absl::Status(
        text.status().code(),
        absl::StrCat(text.status().message(),
                     "; --resume needs the --results-dir of an earlier sweep"));
  }
  json old = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (old.is_discarded() || !old.contains("runs")) {
    return absl::InvalidArgumentError(
        absl::StrCat(manifest_path, ": not a sweep manifest"));
  }
  const json& a = old["runs"];
  const json& b = manifest["runs"];
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    std::string was = i < a.size() ? a[i].value("name", "") : "(none)";
    std::string now = i < b.size() ? b[i].value("name", "") : "(none)";
    if (was != now) {
      return absl::InvalidArgumentError(
          absl::StrCat(manifest_path, ": a different sweep: run ", i, " was '",
                       was, "', this sweep's is '", now,
                       "'; resume with the same file and key=value arguments"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> OpenSweepDir(const std::string& results_dir,
                                         bool resume, json manifest) {
  if (IsObjectStoreUri(results_dir)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sweep --results-dir ", results_dir,
        ": expected a local directory (s3:// and gs:// results are for "
        "`ckptbench run` and `ckptbench coordinator`)"));
  }
  if (resume && results_dir.empty()) {
    return absl::InvalidArgumentError(
        "sweep --resume: expected --results-dir DIR, the "
        "directory of the sweep to finish");
  }
  const std::string dir = results_dir.empty() ? DefaultSweepDir() : results_dir;
  const std::string manifest_path = (fs::path(dir) / "sweep.json").string();
  std::error_code absent;
  const bool there = fs::symlink_status(manifest_path, absent).type() !=
                     fs::file_type::not_found;
  if (resume && !there) {
    LOG_INFO("sweep --resume: %s holds no sweep yet; starting it", dir);
  }
  if (resume && there) {
    if (auto s = CheckSameSweep(manifest_path, manifest); !s.ok()) return s;
    return dir;
  }
  if (fs::exists(manifest_path)) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir, " already holds a sweep (", manifest_path,
        "); finish it with --resume or choose another --results-dir"));
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  SanitizeUtf8(manifest);
  if (auto s = WriteFileAtomically(manifest_path, manifest.dump(2) + "\n");
      !s.ok()) {
    return absl::InvalidArgumentError(s.message());
  }
  return dir;
}

// A run whose result.json says it finished without error.
bool FinishedOk(const std::string& run_dir) {
  auto text = ReadRegularFile((fs::path(run_dir) / "result.json").string(),
                              kMaxResultBytes, "result");
  if (!text.ok()) return false;
  auto result = ResultFromJson(*text, run_dir);
  return result.ok() && result->status == RunStatus::kOk;
}

}  // namespace ckpt
