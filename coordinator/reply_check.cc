#include "coordinator/reply_check.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/error_kind.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "wire/inspect_codec.h"
#include "wire/phase_report_codec.h"

namespace ckpt {
namespace {

// No round lasts 115 days: a larger duration is garbage, and past it sums
// of durations stop being exact.
constexpr double kMaxSeconds = 1e7;
// Slack for a start lag on one machine (no clock estimate): rounding
// between the clocks the node reads.
constexpr double kLagSlackSeconds = 0.001;

std::string BodyName(v1::NodeMessage::BodyCase body) {
  if (body == v1::NodeMessage::BODY_NOT_SET) return "no body";
  const auto* field =
      v1::NodeMessage::descriptor()->FindFieldByNumber(static_cast<int>(body));
  return field == nullptr ? absl::StrCat("body ", static_cast<int>(body))
                          : std::string(field->name());
}

absl::Status Bad(const std::string& who, const std::string& what) {
  return absl::DataLossError(absl::StrCat(
      who, " sent a phase report the coordinator cannot use: ", what,
      " (a ckptbench node of another version, or another "
      "program on the control port?)"));
}

// Seconds on the node's own clock: finite, not negative, not absurd; -1
// means "none" where `none_ok`.
bool Duration(double v, bool none_ok = false) {
  if (none_ok && v == -1) return true;
  return std::isfinite(v) && v >= 0 && v <= kMaxSeconds;
}

}  // namespace

absl::Status CheckReplyBody(const v1::NodeMessage& msg,
                            v1::NodeMessage::BodyCase want,
                            const std::string& who) {
  if (msg.body_case() == want) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(
      who, " answered a ", BodyName(want), " call with ",
      BodyName(msg.body_case()),
      " (a ckptbench node of another version, or another program on the "
      "control port?)"));
}

PhaseExpectation ExpectPhase(const PhaseJob& job, double rtt_seconds) {
  PhaseExpectation e;
  e.round_id = job.round_id;
  e.save = job.save;
  e.clock_error_seconds = std::max(0.0, rtt_seconds / 2);
  for (const RankJob& r : job.ranks) {
    PhaseExpectation::Rank& rank = e.ranks[r.rank];
    for (const FileJob& f : r.files) {
      uint64_t planned = f.size;
      if (f.ranges) {
        planned = 0;
        for (const SegmentJob& s : f.segments) planned += s.length;
      }
      rank.min_bytes += planned;
      rank.max_bytes += f.size;
      rank.files[f.path] = f.size;
      if (e.save) {
        rank.segments[f.index] = static_cast<uint32_t>(f.segments.size());
      }
    }
  }
  return e;
}

absl::Status UnusableReport(const std::string& who, absl::string_view what) {
  return Bad(who, std::string(what));
}

absl::Status CheckReportEnvelope(const PhaseOutcome& report, uint64_t round_id,
                                 double clock_error_seconds,
                                 const std::string& who) {
  if (report.round_id != round_id) {
    return Bad(who, absl::StrCat("it answers round ", report.round_id,
                                 ", not round ", round_id));
  }
  // The start lag compares the node's start with the instant the
  // coordinator chose, through the clock estimate: early only by its error.
  const double lag = report.start_lag_seconds;
  const double early = clock_error_seconds + kLagSlackSeconds;
  if (!std::isfinite(lag) || lag < -early || lag > kMaxSeconds) {
    return Bad(who, absl::StrFormat(
                        "start lag %g s; expected at least -%g s (half the "
                        "round trip of its clock estimate)",
                        lag, early));
  }
  return absl::OkStatus();
}

namespace {

// Durations on the node's clock: finite, from 0 to kMaxSeconds.
absl::Status CheckTimes(const PhaseOutcome& report, const std::string& who) {
  for (const auto& [name, v] :
       std::initializer_list<std::pair<const char*, double>>{
           {"dir_sync_seconds", report.dir_sync_seconds},
           {"data_seconds", report.data_seconds},
           {"file_seconds", report.file_seconds},
           {"backoff_seconds", report.backoff_seconds},
           {"cpu.user_seconds", report.cpu.user_seconds},
           {"cpu.system_seconds", report.cpu.system_seconds},
           {"cpu.host_busy", report.cpu.host_busy},
           {"staging.copy_seconds", report.staging.copy_seconds},
           {"staging.blocking_seconds", report.staging.blocking_seconds},
           {"staging.durable_seconds", report.staging.durable_seconds},
           {"staging.compute_seconds", report.staging.compute_seconds},
           {"staging.compute_baseline_seconds",
            report.staging.compute_baseline_seconds}}) {
    if (!Duration(v)) {
      return Bad(who, absl::StrFormat("%s = %g; expected from 0 to %g", name, v,
                                      kMaxSeconds));
    }
  }
  return absl::OkStatus();
}

// Only its own ranks, each once, with the bytes of their plan (all of them
// unless it `failed`).
absl::Status CheckRanks(const PhaseOutcome& report,
                        const PhaseExpectation& expect, bool failed,
                        const std::string& who) {
  std::set<uint32_t> seen;
  for (const RankOutcome& r : report.ranks) {
    auto it = expect.ranks.find(r.rank);
    if (it == expect.ranks.end()) {
      return Bad(who, absl::StrCat("rank ", r.rank, " is not one of its"));
    }
    if (!seen.insert(r.rank).second) {
      return Bad(who, absl::StrCat("rank ", r.rank, " is reported twice"));
    }
    const PhaseExpectation::Rank& want = it->second;
    if (r.bytes > want.max_bytes || (!failed && r.bytes < want.min_bytes)) {
      return Bad(
          who, absl::StrCat(
                   "rank ", r.rank, " moved ", r.bytes, " bytes; its plan has ",
                   want.min_bytes == want.max_bytes
                       ? absl::StrCat(want.max_bytes)
                       : absl::StrCat(want.min_bytes, " to ", want.max_bytes)));
    }
    if (r.checked_bytes > r.bytes || r.checked_files > want.files.size()) {
      return Bad(who,
                 absl::StrCat("rank ", r.rank, " checked ", r.checked_bytes,
                              " bytes in ", r.checked_files, " files of ",
                              r.bytes, " bytes read"));
    }
    if (!Duration(r.first_byte_seconds, true) || !Duration(r.done_seconds)) {
      return Bad(who, absl::StrFormat(
                          "rank %d first byte at %g s, done at %g s; expected "
                          "seconds from 0 (-1: no byte)",
                          r.rank, r.first_byte_seconds, r.done_seconds));
    }
  }
  if (!failed && seen.size() != expect.ranks.size()) {
    for (const auto& [rank, want] : expect.ranks) {
      if (!seen.count(rank)) {
        return Bad(who, absl::StrCat("rank ", rank, " is missing"));
      }
    }
  }
  return absl::OkStatus();
}

// Only files it was given, no more bytes than their size, sane times.
absl::Status CheckFiles(const PhaseOutcome& report,
                        const PhaseExpectation& expect,
                        const std::string& who) {
  for (const FileRecord& f : report.files) {
    auto it = expect.ranks.find(f.rank);
    const uint64_t* size = nullptr;
    if (it != expect.ranks.end()) {
      auto file = it->second.files.find(f.name);
      if (file != it->second.files.end()) size = &file->second;
    }
    if (size == nullptr) {
      return Bad(
          who, absl::StrCat("a record of file '",
                            EscapeForTerminal(f.name.substr(0, 200)),
                            "' of rank ", f.rank, ", which it was not given"));
    }
    if (f.bytes > *size) {
      return Bad(who, absl::StrCat("file ", f.name, " moved ", f.bytes,
                                   " bytes of ", *size));
    }
    for (double v : {f.start, f.done, f.data, f.io, f.sync}) {
      if (!Duration(v)) {
        return Bad(who,
                   absl::StrFormat("file %s has a time of %g s", f.name, v));
      }
    }
    for (double v : {f.first_byte, f.last_byte}) {
      if (!Duration(v, true)) {
        return Bad(who,
                   absl::StrFormat("file %s has a byte at %g s", f.name, v));
      }
    }
  }
  return absl::OkStatus();
}

// A save's checksums, each of a segment of its plan.
absl::Status CheckChecksums(const PhaseOutcome& report,
                            const PhaseExpectation& expect,
                            const std::string& who) {
  for (const SegmentSum& c : report.checksums) {
    auto it = expect.ranks.find(c.rank);
    bool known = expect.save && it != expect.ranks.end();
    if (known) {
      auto seg = it->second.segments.find(c.file_index);
      known = seg != it->second.segments.end() && c.segment_index < seg->second;
    }
    if (!known) {
      return Bad(who, absl::StrCat("a checksum of rank ", c.rank, " file ",
                                   c.file_index, " segment ", c.segment_index,
                                   ", not in its plan"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckReportFigures(const PhaseOutcome& report,
                                const std::string& who) {
  RETURN_IF_ERROR(CheckTimes(report, who));
  for (const RankOutcome& r : report.ranks) {
    if (!Duration(r.first_byte_seconds, /*none_ok=*/true) ||
        !Duration(r.done_seconds)) {
      return Bad(who, absl::StrFormat("rank %d's times %g and %g s; expected "
                                      "from 0 to %g",
                                      r.rank, r.first_byte_seconds,
                                      r.done_seconds, kMaxSeconds));
    }
  }
  return absl::OkStatus();
}

bool IsReportDuration(double seconds) { return Duration(seconds, true); }

absl::Status CheckPhaseReportBody(const PhaseOutcome& report,
                                  const PhaseExpectation& expect,
                                  const std::string& who) {
  const bool failed = !report.status.ok();
  RETURN_IF_ERROR(CheckTimes(report, who));
  RETURN_IF_ERROR(CheckRanks(report, expect, failed, who));
  RETURN_IF_ERROR(CheckFiles(report, expect, who));
  return CheckChecksums(report, expect, who);
}

absl::Status CheckPhaseReport(const PhaseOutcome& report,
                              const PhaseExpectation& expect,
                              const std::string& who) {
  RETURN_IF_ERROR(CheckReportEnvelope(report, expect.round_id,
                                      expect.clock_error_seconds, who));
  return CheckPhaseReportBody(report, expect, who);
}

absl::Status CheckNodeReply(const v1::NodeMessage& msg,
                            v1::NodeMessage::BodyCase want,
                            const std::string& who,
                            const PhaseExpectation* phase) {
  if (auto s = CheckReplyBody(msg, want, who); !s.ok()) return s;
  if (msg.has_inspect()) {
    return WithPrefix(FromWire(msg.inspect()).status(), who + " sent ");
  }
  if (msg.has_phase_report() && phase != nullptr) {
    absl::StatusOr<PhaseOutcome> report = FromWire(msg.phase_report());
    if (!report.ok()) return UnusableReport(who, report.status().message());
    return CheckPhaseReport(*report, *phase, who);
  }
  return absl::OkStatus();
}

}  // namespace ckpt
