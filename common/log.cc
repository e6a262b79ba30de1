#include "common/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "common/secrets.h"
#include "common/text.h"

namespace ckpt {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::mutex g_mu;
}  // namespace

void SetLogLevel(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }

void LogLine(LogLevel level, const std::string& message) {
  static const char kTag[] = {'D', 'I', 'W', 'E'};
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  int ms =
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                           now.time_since_epoch())
                           .count() %
                       1000);
  std::tm tm;
  gmtime_r(&t, &tm);
  char ts[32];
  std::strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
  // One line whatever the message holds: names and errors from nodes,
  // servers and files could otherwise end it and forge the next, or drive
  // the terminal with escape sequences.
  const std::string line = EscapeForTerminal(ScrubSecrets(message));
  std::lock_guard<std::mutex> lock(g_mu);
  std::fprintf(stderr, "%c %s.%03d %s\n", kTag[static_cast<int>(level)], ts, ms,
               line.c_str());
  std::fflush(stderr);
}

void PrintError(const std::string& message, const std::string& prefix) {
  const std::string line = prefix + EscapeForTerminal(ScrubSecrets(message));
  std::lock_guard<std::mutex> lock(g_mu);
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace ckpt
