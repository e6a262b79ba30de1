#include "coordinator/progress.h"

#include <cstdio>

#include "absl/strings/str_format.h"
#include "common/bytes.h"

namespace ckpt {

ProgressPrinter::ProgressPrinter(double interval_seconds, bool terminal)
    : interval_(interval_seconds), terminal_(terminal) {
  thread_ = std::thread([this] { Loop(); });
}

ProgressPrinter::~ProgressPrinter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ProgressPrinter::SetContext(const std::string& context) {
  std::lock_guard<std::mutex> lock(mu_);
  context_ = context.empty() ? "" : context + " ";
}

void ProgressPrinter::BeginRound(const std::string& label, uint64_t total_bytes,
                                 int nodes) {
  std::lock_guard<std::mutex> lock(mu_);
  label_ = label;
  total_ = total_bytes;
  nodes_ = nodes;
  nodes_done_ = 0;
  rank_bytes_.clear();
  start_ = std::chrono::steady_clock::now();
  active_ = true;
  printed_ = false;
  cv_.notify_all();
}

void ProgressPrinter::Update(int node, const PhaseProgress& p) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const RankProgress& r : p.ranks)
    rank_bytes_[{node, r.rank}] = r.bytes_done;
}

void ProgressPrinter::NodeDone(int) {
  std::lock_guard<std::mutex> lock(mu_);
  ++nodes_done_;
}

void ProgressPrinter::EndRound() {
  std::lock_guard<std::mutex> lock(mu_);
  active_ = false;
  if (printed_ && terminal_) std::fprintf(stderr, "\n");
  cv_.notify_all();
}

std::string ProgressPrinter::Line() {
  uint64_t done = 0;
  for (const auto& [k, v] : rank_bytes_) done += v;
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  double rate = MibPerSecond(done, secs);
  std::string eta = "-";
  if (rate > 0 && total_ > done) {
    eta = absl::StrFormat(
        "%.1fs", static_cast<double>(total_ - done) / (rate * 1048576.0));
  }
  double pct =
      total_ ? 100.0 * static_cast<double>(done) / static_cast<double>(total_)
             : 0;
  return absl::StrFormat(
      "%s%s  %s / %s  %5.1f%%  %.1f MiB/s  ETA %s  nodes done %d/%d", context_,
      label_, FormatBytes(done), FormatBytes(total_), pct, rate, eta,
      nodes_done_, nodes_);
}

void ProgressPrinter::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, std::chrono::duration<double>(interval_));
    if (stop_ || !active_) continue;
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
            .count();
    if (secs < interval_) continue;
    std::string line = Line();
    if (terminal_) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    } else {
      std::fprintf(stderr, "progress: %s\n", line.c_str());
    }
    std::fflush(stderr);
    printed_ = true;
  }
}

}  // namespace ckpt
